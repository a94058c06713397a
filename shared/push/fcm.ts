import type { FcmServiceAccount } from '#shared/domain/android-key';
import type { FcmChannel } from '#shared/push/channel';
import { answerHeader, dropFcmAccessToken, fcmAccessToken, parseObject } from '#shared/push/fcm-token';
import { retryAfterSeconds } from '#shared/push/post';
import { type PushNotification, type PushProvider, type PushResult, pushAbout } from '#shared/push/provider';
import { postToService } from '#shared/push/service-post';

export const defaultFcmSendUrl = 'https://fcm.googleapis.com';
export const defaultFcmTokenUrl = 'https://oauth2.googleapis.com/token';

export interface FcmOptions {
  /** The directory's `android_key`, parsed. */
  readonly account: FcmServiceAccount;
  /** FCM's origin (and any path prefix before `/v1`); defaults to Google's. */
  readonly sendUrl?: string;
  /** Google's OAuth 2.0 token endpoint, also the grant's `aud`; never the key file's own `token_uri`. */
  readonly tokenUrl?: string;
  /** For each request: the token grant and the send. */
  readonly timeoutMs: number;
  /** A PEM certificate trusted besides the default roots. */
  readonly ca?: string;
}

/** FCM keeps a message at most four weeks. */
const maxTtlSeconds = 28 * 24 * 3600;

/**
 * The FCM HTTP v1 message for one push. A prompt is a high-priority notification message (shown even when the app is
 * not running) that replaces any earlier one for the request (`tag`); `ended` is a normal-priority data-only message,
 * handed to the app to take its prompt down. Both collapse per request and carry only the type and the request's id.
 */
export function fcmMessage(
  token: string,
  notification: PushNotification,
): { message: Record<string, unknown> } {
  const about = pushAbout(notification);
  const id = about.collapseId;
  const prompt = notification.kind !== 'ended';
  const ttl = Math.min(maxTtlSeconds, Math.max(0, Math.floor(notification.ttlSeconds)));
  return {
    message: {
      token,
      data: { ...about.fields },
      android: {
        priority: prompt ? 'HIGH' : 'NORMAL',
        ttl: `${ttl}s`,
        collapse_key: id,
        ...(prompt ? { notification: { title: notification.title, body: notification.body, tag: id } } : {}),
      },
    },
  };
}

/**
 * FCM HTTP v1 for a directory's Android app, authenticated with the directory's service account through a cached
 * OAuth 2.0 access token. Outcomes follow FCM's documented errors: UNREGISTERED and an invalid registration token are
 * `gone`; 429 and 5xx are retried (honouring Retry-After), as is 401 once the refused token is dropped.
 */
export function fcmProvider(options: FcmOptions): PushProvider<FcmChannel> {
  const source = {
    account: options.account,
    tokenUrl: options.tokenUrl ?? defaultFcmTokenUrl,
    timeoutMs: options.timeoutMs,
    ca: options.ca,
  };
  const base = (options.sendUrl ?? defaultFcmSendUrl).replace(/\/+$/, '');
  const url = new URL(`${base}/v1/projects/${encodeURIComponent(options.account.projectId)}/messages:send`);
  return {
    async send(channel, notification): Promise<PushResult> {
      const access = await fcmAccessToken(source);
      if (!access.ok) return access.result;
      const answer = await postToService({
        url,
        headers: {
          authorization: `Bearer ${access.token}`,
          'content-type': 'application/json; charset=utf-8',
          accept: 'application/json',
        },
        body: JSON.stringify(fcmMessage(channel.token, notification)),
        timeoutMs: options.timeoutMs,
        ca: options.ca,
      });
      if (!answer.answered) return { outcome: 'retry-after', reason: answer.reason };
      const { status } = answer;
      if (status === 200) return { outcome: 'delivered', status };
      const error = fcmError(answer.body);
      const said = `FCM answered ${status}${error.code ? ` ${error.code}` : ''}`;
      if (status === 404 && error.code === 'UNREGISTERED') return { outcome: 'gone', status };
      if (status === 400 && error.badToken) return { outcome: 'gone', status };
      if (status === 401) {
        // An access token revoked or expired early: the next attempt gets a new one.
        dropFcmAccessToken(source, access.token);
        return { outcome: 'retry-after', reason: said, status };
      }
      if (status === 429 || status >= 500) {
        const seconds = retryAfterSeconds(answerHeader(answer, 'retry-after'));
        return {
          outcome: 'retry-after',
          reason: said,
          status,
          ...(seconds === undefined ? {} : { seconds }),
        };
      }
      return { outcome: 'failed', reason: said, status };
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface FcmErrorSummary {
  /** FcmError's errorCode when given (UNREGISTERED, SENDER_ID_MISMATCH, …), else the google.rpc status. */
  readonly code?: string;
  /** A 400 about `message.token`: the registration token is malformed or not FCM's. */
  readonly badToken: boolean;
}

/**
 * Reads the google.rpc.Status an error answer carries. Only enum-like codes come out: the message and field
 * descriptions can quote the request, registration token included.
 */
function fcmError(body: string): FcmErrorSummary {
  const error = parseObject(body)?.error;
  if (typeof error !== 'object' || error === null) return { badToken: false };
  const { status, message, details } = error as Record<string, unknown>;
  let errorCode: unknown;
  let badToken = false;
  for (const detail of Array.isArray(details) ? details.slice(0, 16) : []) {
    if (typeof detail !== 'object' || detail === null) continue;
    const { '@type': type, errorCode: code, fieldViolations } = detail as Record<string, unknown>;
    if (type === 'type.googleapis.com/google.firebase.fcm.v1.FcmError') errorCode = code;
    if (type === 'type.googleapis.com/google.rpc.BadRequest' && Array.isArray(fieldViolations)) {
      badToken ||= (fieldViolations as unknown[]).some(
        (violation) => isObject(violation) && violation.field === 'message.token',
      );
    }
  }
  badToken ||=
    typeof message === 'string' && /registration token is not a valid FCM registration token/i.test(message);
  const code = [errorCode, status].find((value) => typeof value === 'string' && /^[A-Z_]{1,64}$/.test(value));
  return { ...(typeof code === 'string' ? { code } : {}), badToken };
}
