import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { responseEncryptionKey } from '#shared/domain/entity-key';
import { serviceUserHash } from '#shared/domain/user-identity';
import type { WebhookEvent } from '#shared/events/webhook-event';
import type { ApiIdentity } from '#shared/protocol/dialect';
import { type Entity, formatEntity, parseEntity } from '#shared/protocol/entity';
import { encryptJson } from '#shared/protocol/jwe';
import { importPublicKey } from '#shared/protocol/pem';
import { getAuthRequest } from '#shared/store/auth-requests';
import { getDirectory } from '#shared/store/directories';
import { listEntityKeys } from '#shared/store/entity-keys';
import { getHead } from '#shared/store/heads';
import { serviceFromHead } from '#shared/store/service-heads';
import { authorizationResponse } from '#shared/use-cases/auth-request-outcomes';

/** A webhook ready to sign and post (docs/protocol.md#webhooks). */
export interface Webhook {
  readonly url: string;
  /** The service or directory the event concerns: the JWT's `sub`. */
  readonly subject: Entity;
  /** The entity whose request caused the event, whose keys open the body: the JWT's `aud`. */
  readonly audience: string;
  /** The identity that entity addressed (`lka` or `api`): the JWT's `iss`. */
  readonly identity: ApiIdentity;
  readonly contentType: 'application/jose' | 'application/json';
  readonly body: string;
}

export type BuiltWebhook =
  | { readonly build: 'webhook'; readonly webhook: Webhook }
  /** The service or directory has no URL: nothing to deliver, nothing wrong. */
  | { readonly build: 'no-destination' }
  /** Current state cannot make this webhook (its service was deleted, say); retrying will not help. */
  | { readonly build: 'undeliverable'; readonly reason: string };

const undeliverable = (reason: string): BuiltWebhook => ({ build: 'undeliverable', reason });

/** Loads what the event names as it is now and builds its webhook. */
export async function buildWebhook(event: WebhookEvent, now: Date): Promise<BuiltWebhook> {
  switch (event.kind) {
    case 'authorization-response':
      return authorizationResponseWebhook(event.authRequestId);
    case 'session-ended':
      return sessionEndedWebhook(event);
    case 'device-link-completion':
      return deviceLinkCompletionWebhook(event, now);
  }
}

async function callbackUrlOf(serviceId: string): Promise<string | null | undefined> {
  const head = await getHead({ type: 'svc', id: serviceId });
  return head ? serviceFromHead(head).callbackUrl : undefined;
}

/** docs/protocol.md#webhooks: the docs/protocol.md#authorization-response object with its type, encrypted to the very key the device sealed `auth_jwe` to. */
async function authorizationResponseWebhook(authRequestId: string): Promise<BuiltWebhook> {
  const auth = await getAuthRequest(authRequestId);
  if (!auth?.answer) return undeliverable(`auth request ${authRequestId} has no answer`);
  const url = await callbackUrlOf(auth.serviceId);
  if (url === undefined) return undeliverable(`service ${auth.serviceId} no longer exists`);
  if (url === null) return { build: 'no-destination' };
  const hashKey = await currentHashKey();
  const body = await encryptJson(
    { type: 'AUTHORIZATION_RESPONSE', ...authorizationResponse(auth, hashKey) },
    { kid: auth.requesterKid, publicKey: importPublicKey(auth.requesterPublicKey) },
  );
  return {
    build: 'webhook',
    webhook: {
      url,
      subject: { type: 'svc', id: auth.serviceId },
      audience: auth.requester,
      identity: auth.identity,
      contentType: 'application/jose',
      body,
    },
  };
}

/** docs/protocol.md#webhooks: plain JSON with exactly the two keys the Java SDK's strict reader takes. */
async function sessionEndedWebhook(
  event: Extract<WebhookEvent, { kind: 'session-ended' }>,
): Promise<BuiltWebhook> {
  const url = await callbackUrlOf(event.serviceId);
  if (url === undefined) return undeliverable(`service ${event.serviceId} no longer exists`);
  if (url === null) return { build: 'no-destination' };
  const hashKey = await currentHashKey();
  return {
    build: 'webhook',
    webhook: {
      url,
      subject: { type: 'svc', id: event.serviceId },
      audience: event.audience,
      identity: event.identity,
      contentType: 'application/json',
      body: JSON.stringify({
        service_user_hash: serviceUserHash(hashKey, event.serviceId, event.userId),
        api_time: event.endedAt,
      }),
    },
  };
}

/**
 * docs/protocol.md#webhooks: the device and its key, encrypted to the entity that started the link: to the very key its request was
 * answered with while that key is live, so that an application server still holding only the key it signed with
 * during a key rotation can open it; to the newest live encryption key only once that one is gone.
 */
async function deviceLinkCompletionWebhook(
  event: Extract<WebhookEvent, { kind: 'device-link-completion' }>,
  now: Date,
): Promise<BuiltWebhook> {
  const directory = await getDirectory(event.organizationId, event.directoryId);
  if (!directory) return undeliverable(`directory ${event.directoryId} no longer exists`);
  if (!directory.webhook_url) return { build: 'no-destination' };
  const [deviceKey] = await listEntityKeys({ type: 'dev', id: event.deviceId });
  if (!deviceKey) return undeliverable(`device ${event.deviceId} is no longer linked`);
  const audience = parseEntity(event.audience);
  const recipient =
    audience && responseEncryptionKey(await listEntityKeys(audience), event.audienceKid ?? '', now);
  if (!recipient) return undeliverable(`${event.audience} has no key to encrypt the webhook to`);
  const body = await encryptJson(
    {
      type: 'DEVICE_LINK_COMPLETION',
      device_id: event.deviceId,
      device_public_key: deviceKey.publicKeyPem,
      device_public_key_id: deviceKey.kid,
    },
    { kid: recipient.kid, publicKey: importPublicKey(recipient.publicKeyPem) },
  );
  return {
    build: 'webhook',
    webhook: {
      url: directory.webhook_url,
      subject: { type: 'dir', id: event.directoryId },
      audience: formatEntity(audience),
      identity: event.identity,
      contentType: 'application/jose',
      body,
    },
  };
}
