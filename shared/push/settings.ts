import { readFileSync } from 'node:fs';
import { positiveIntegerEnv } from '#shared/config';
import { type DestinationPolicy, destinationPolicyFromEnv } from '#shared/webhooks/destination';

export interface PushWorkerSettings {
  /** The webhook address guard: push endpoints may go where webhooks may. */
  readonly policy: DestinationPolicy;
  /** How long one push may take, connection included. */
  readonly timeoutMs: number;
  /** Attempts in all before the DLQ. */
  readonly maxAttempts: number;
  /** The delay before the second attempt; each later one doubles it. */
  readonly retryBaseSeconds: number;
  /** The VAPID `sub` claim: a contact for the push services, a real `mailto:` or `https:` URL. */
  readonly vapidSubject: string;
  /** Where APNs and FCM are: the real services unless pointed elsewhere (a proxy, or a local stand-in in tests). */
  readonly apnsUrls: { readonly production: string; readonly sandbox: string };
  readonly fcmUrl: string;
  readonly fcmTokenUrl: string;
  /** PEM of further certificate authorities to trust for APNs and FCM (a TLS-inspecting proxy), beside the usual ones. */
  readonly ca: string | undefined;
}

/** An https URL (http only for a loopback stand-in), named in the error by its variable. */
function serviceUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const text = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} must be a URL, not ${text}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error(`${name} must be an https URL (http only on loopback), not ${text}`);
  return text.replace(/\/+$/, '');
}

/** A VAPID contact push services accept: Apple answers 403 BadJwtToken to a made-up one such as `mailto:x@localhost`. */
export function checkVapidSubject(subject: string): string {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    throw new Error(`PUSH_VAPID_SUBJECT must be a mailto: or https: URL, not ${subject}`);
  }
  const host = url.protocol === 'mailto:' ? url.pathname.split('@')[1] : url.hostname;
  if (
    !['mailto:', 'https:'].includes(url.protocol) ||
    !host ||
    !host.includes('.') ||
    /localhost$/i.test(host)
  ) {
    throw new Error(`PUSH_VAPID_SUBJECT must be a mailto: or https: URL with a real domain, not ${subject}`);
  }
  return subject;
}

export function pushWorkerSettings(env: NodeJS.ProcessEnv = process.env): PushWorkerSettings {
  return {
    policy: destinationPolicyFromEnv(env),
    timeoutMs: positiveIntegerEnv(env, 'PUSH_TIMEOUT_MS', 5_000),
    maxAttempts: positiveIntegerEnv(env, 'PUSH_MAX_ATTEMPTS', 5),
    retryBaseSeconds: positiveIntegerEnv(env, 'PUSH_RETRY_BASE_SECONDS', 2),
    vapidSubject: checkVapidSubject(env.PUSH_VAPID_SUBJECT ?? 'mailto:postmaster@example.com'),
    apnsUrls: {
      production: serviceUrl(env, 'PUSH_APNS_URL', 'https://api.push.apple.com'),
      sandbox: serviceUrl(env, 'PUSH_APNS_SANDBOX_URL', 'https://api.sandbox.push.apple.com'),
    },
    fcmUrl: serviceUrl(env, 'PUSH_FCM_URL', 'https://fcm.googleapis.com'),
    fcmTokenUrl: serviceUrl(env, 'PUSH_FCM_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    ca: env.PUSH_CA_FILE ? readFileSync(env.PUSH_CA_FILE, 'utf8') : undefined,
  };
}
