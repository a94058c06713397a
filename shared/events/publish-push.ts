import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { requireEnv } from '#shared/config';
import { queueClient } from '#shared/events/queue-client';
import { queuedPushBody } from '#shared/events/push-event';
import { logger } from '#shared/log';
import { countMetric } from '#shared/metrics';
import type { PushChannel } from '#shared/push/channel';

/** SQS delays a message at most 15 minutes; an auth request lives at most 10. */
const maxDelaySeconds = 900;

/**
 * Tells the push worker a request was created: one message to prompt the user's devices now, and one that arrives
 * when the request expires, to take the prompt down if nothing else has. One queue call. A failure is logged and
 * swallowed: a push never fails the create, whose request devices still see on GET /device/v3/auths.
 */
export async function publishPrompt(authRequestId: string, ttlSeconds: number): Promise<void> {
  await send('prompt', [
    { Id: 'prompt', MessageBody: queuedPushBody({ kind: 'prompt', authRequestId }) },
    {
      Id: 'expiry',
      MessageBody: queuedPushBody({ kind: 'ended', authRequestId, expiry: true }),
      DelaySeconds: Math.min(maxDelaySeconds, Math.max(0, Math.ceil(ttlSeconds))),
    },
  ]);
}

/** Tells the push worker a request was answered or cancelled, so that its prompt comes down on the other devices. */
export async function publishEnded(authRequestId: string): Promise<void> {
  await send('ended', [{ Id: 'ended', MessageBody: queuedPushBody({ kind: 'ended', authRequestId }) }]);
}

/**
 * Tells the push worker a new device of the user waits for confirmation, so that the user's devices show it. Like
 * every push, never fails the link: GET /device/v3/link-requests stays the source of truth.
 */
export async function publishLinkRequest(
  key: { directoryId: string; identifier: string },
  linkingDeviceId: string,
): Promise<void> {
  await send('link-request', [
    {
      Id: 'link-request',
      MessageBody: queuedPushBody({ kind: 'link-request', ...key, linkingDeviceId }),
    },
  ]);
}

/**
 * Tells the push worker the directory is unlinking a device: published before the device and its channel go, with
 * that channel, so that the device still shows it was removed. Never fails the unlink.
 */
export async function publishUnlinked(
  key: { directoryId: string; identifier: string },
  unlinkedDeviceId: string,
  channel: PushChannel | undefined,
): Promise<void> {
  await send('unlinked', [
    {
      Id: 'unlinked',
      MessageBody: queuedPushBody({
        kind: 'unlinked',
        ...key,
        unlinkedDeviceId,
        ...(channel ? { channel } : {}),
      }),
    },
  ]);
}

async function send(
  kind: string,
  entries: { Id: string; MessageBody: string; DelaySeconds?: number }[],
): Promise<void> {
  try {
    // Read here, not at load: modules that only read auth requests import this one too, without the queue's grant.
    const queueUrl = requireEnv('PUSH_QUEUE_URL');
    const { Failed = [] } = await queueClient.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
    );
    if (Failed.length) throw new Error(Failed.map((failure) => failure.Code ?? 'failed').join(', '));
  } catch (error) {
    logger.error('Push could not be queued', { kind, error: (error as Error).message });
    countMetric('PushesNotQueued');
  }
}
