import { type AuthRequest, authRequestState } from '#shared/domain/auth-request';
import { answeringDevices, DeviceStatus, type UserDevice, type UserKey } from '#shared/domain/user';
import { authEnd } from '#shared/domain/health';
import type { PushEvent } from '#shared/events/push-event';
import { describeChannel, type PushChannel } from '#shared/push/channel';
import type { PushNotification, PushResult } from '#shared/push/provider';
import type { PushWorkerSettings } from '#shared/push/settings';
import { getAuthRequest } from '#shared/store/auth-requests';
import { logger } from '#shared/log';
import { recordAuthHealth, recordPushHealth } from '#shared/store/health-metrics';
import { recordPushed, wasPushed } from '#shared/store/push-deliveries';
import { getUser, removeDevicePushChannel } from '#shared/store/users';
import { type ProviderFor, pushProviders } from '#shared/use-cases/push-providers';
import type { Resolver } from '#shared/webhooks/destination';

/** One device's attempt, as the worker logs it: ids, the push service's origin and the outcome, nothing secret. */
export type DeviceAttempt = PushResult & {
  readonly deviceId: string;
  readonly channel: PushChannel['type'];
  readonly destination: string;
};

export type PushDelivery =
  /** Nothing to push: the request is gone, not in the state this push is about, or no device has a channel. */
  | { readonly outcome: 'nothing'; readonly why: string }
  /** The request is still pending at its end message (a clock ahead of the queue's): try again in `seconds`. */
  | { readonly outcome: 'early'; readonly seconds: number }
  | { readonly outcome: 'attempted'; readonly attempts: readonly DeviceAttempt[] };

/** The line a prompt shows when the service gave none. */
export const defaultPromptBody = 'Approve or deny the sign-in request';

const endedBodies = {
  answered: 'Answered on another device',
  numberMatchFailed: 'Ended after wrong codes',
  cancelled: 'Cancelled',
  expired: 'Expired',
  void: 'Cancelled',
} as const;

type AuthRequestPushEvent = Exclude<PushEvent, { kind: 'link-request' | 'unlinked' }>;

function notificationFor(
  event: AuthRequestPushEvent,
  auth: AuthRequest,
  state: 'answered' | 'cancelled' | 'expired' | 'void' | 'pending',
  nowSeconds: number,
): PushNotification {
  const title = auth.pushTitle ?? auth.serviceName;
  if (event.kind === 'prompt' || state === 'pending') {
    return {
      kind: 'prompt',
      authRequestId: auth.id,
      title,
      body: auth.pushBody ?? defaultPromptBody,
      ttlSeconds: Math.max(0, auth.expiresAt - nowSeconds),
    };
  }
  // Long enough to replace a prompt that an offline device has not received yet (same Topic), and then gone.
  const body = endedBodies[auth.numberMatchFailed ? 'numberMatchFailed' : state];
  return { kind: 'ended', authRequestId: auth.id, title, body, ttlSeconds: 600 };
}

/**
 * One push event: loads the request and its user now, and pushes to each device that the request was offered to and
 * that has a channel — or, for a retry, to the one device it names. A prompt goes out only while the request is
 * pending; an end goes only to the devices a prompt reached, except the device that answered. A device reached
 * already (recorded after each success) is skipped, so a redelivered message does not push twice. A channel the push
 * service says is gone is removed from the device at once.
 */
export async function deliverPush(
  event: PushEvent,
  settings: PushWorkerSettings,
  options: { now?: Date; resolve?: Resolver; providers?: ProviderFor } = {},
): Promise<PushDelivery> {
  const now = options.now ?? new Date();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (event.kind === 'link-request') return deliverLinkRequest(event, settings, nowSeconds, options);
  if (event.kind === 'unlinked') return deliverUnlinked(event, settings, options);
  const auth = await getAuthRequest(event.authRequestId);
  if (!auth) return { outcome: 'nothing', why: 'no such auth request' };
  const state = authRequestState(auth, nowSeconds);
  // The expiry's own message, not a retry of it for one device: the request is counted once, devices or not.
  if (event.kind === 'ended' && event.expiry && event.deviceId === undefined) await countAuthEnd(auth, now);
  if (event.kind === 'prompt' && state !== 'pending')
    return { outcome: 'nothing', why: `the request is ${state}` };
  if (event.kind === 'ended' && state === 'pending') {
    return { outcome: 'early', seconds: Math.max(1, auth.expiresAt - nowSeconds) };
  }
  const user = await getUser({ directoryId: auth.directoryId, identifier: auth.identifier });
  const devices = (user?.devices ?? []).filter(
    (device): device is UserDevice & { push: PushChannel } =>
      device.push !== undefined &&
      device.status === DeviceStatus.linked &&
      auth.deviceIds.includes(device.id) &&
      (event.deviceId === undefined || device.id === event.deviceId) &&
      // The device that answered knows; after wrong codes every device's prompt comes down.
      !(event.kind === 'ended' && device.id === auth.answer?.deviceId && !auth.numberMatchFailed),
  );
  if (devices.length === 0) return { outcome: 'nothing', why: 'no device with a push channel' };
  const providerFor = options.providers ?? pushProviders(auth.directoryId, settings, options.resolve);
  const notification = notificationFor(event, auth, state, nowSeconds);
  const attempts = await Promise.all(
    devices.map(async (device): Promise<DeviceAttempt | undefined> => {
      if (await wasPushed(auth.id, event.kind, device.id)) return undefined;
      if (event.kind === 'ended' && !(await wasPushed(auth.id, 'prompt', device.id))) return undefined;
      const provider = await providerFor(device.push);
      const started = performance.now();
      const result: PushResult =
        typeof provider === 'string'
          ? { outcome: 'failed', reason: provider }
          : await provider.send(device.push, notification);
      const latencyMs = typeof provider === 'string' ? undefined : performance.now() - started;
      const key = { directoryId: auth.directoryId, identifier: auth.identifier };
      if (result.outcome === 'delivered') await recordPushed(auth.id, event.kind, device.id, auth.expiresAt);
      if (result.outcome === 'gone') await removeDevicePushChannel(key, device.id, device.push);
      // After what a redelivery depends on, so that counting never delays or stands in its way.
      await countPush(auth.organizationId, device.push.type, result, latencyMs, now);
      return {
        ...result,
        deviceId: device.id,
        channel: device.push.type,
        destination: describeChannel(device.push),
      };
    }),
  );
  const made = attempts.filter((attempt): attempt is DeviceAttempt => attempt !== undefined);
  if (made.length === 0) return { outcome: 'nothing', why: 'every device was reached already' };
  return { outcome: 'attempted', attempts: made };
}

/**
 * Counts a push in its organization's health (docs/console.md#health): one counter write, which never fails the
 * delivery. A push that never reached its provider (no credentials) is failed without a latency.
 */
async function countPush(
  organizationId: string,
  provider: PushChannel['type'],
  result: PushResult,
  latencyMs: number | undefined,
  now: Date,
): Promise<void> {
  const count = result.outcome === 'delivered' ? 'sent' : result.outcome === 'gone' ? 'gone' : 'failed';
  try {
    await recordPushHealth(organizationId, provider, count, latencyMs, now);
  } catch (error) {
    logger.warn('Push health not recorded', { error, organizationId, provider });
  }
}

/**
 * Counts a request that is over in its organization's health (docs/console.md#health), in the bucket of its end: one
 * counter write, which never fails the delivery. Nothing while it is pending (a clock ahead of the queue's: the
 * message comes back).
 */
async function countAuthEnd(auth: AuthRequest, now: Date): Promise<void> {
  const end = authEnd(auth, now.getTime());
  if (!end) return;
  try {
    await recordAuthHealth(auth.organizationId, end.outcome, end.latencyMs, new Date(end.endedAtMs));
  } catch (error) {
    logger.warn('Auth request health not recorded', { error, organizationId: auth.organizationId });
  }
}

/** The line a link request's push shows: lock screens are public, so no name of the device or the user. */
export const linkRequestPush = {
  title: 'A new device wants to join',
  body: 'Approve or refuse it in the app',
};

/**
 * A new device waits for confirmation: each device of the user that may confirm it and has a channel is told, while
 * the device still waits. Not recorded per device: a redelivered message shows the same line once more.
 */
async function deliverLinkRequest(
  event: Extract<PushEvent, { kind: 'link-request' }>,
  settings: PushWorkerSettings,
  nowSeconds: number,
  options: { resolve?: Resolver; providers?: ProviderFor },
): Promise<PushDelivery> {
  const key = { directoryId: event.directoryId, identifier: event.identifier };
  const user = await getUser(key);
  const waiting = user?.devices.find((device) => device.id === event.linkingDeviceId);
  if (!user || !waiting?.confirmation || waiting.confirmation.expiresAt <= nowSeconds)
    return { outcome: 'nothing', why: 'the device no longer waits for confirmation' };
  const devices = answeringDevices(user, nowSeconds).filter(
    (device): device is UserDevice & { push: PushChannel } =>
      device.push !== undefined && (event.deviceId === undefined || device.id === event.deviceId),
  );
  if (devices.length === 0) return { outcome: 'nothing', why: 'no device with a push channel' };
  const providerFor = options.providers ?? pushProviders(event.directoryId, settings, options.resolve);
  const notification: PushNotification = {
    kind: 'link-request',
    deviceId: waiting.id,
    ...linkRequestPush,
    ttlSeconds: waiting.confirmation.expiresAt - nowSeconds,
  };
  const attempts = await Promise.all(
    devices.map((device) => pushToDevice(providerFor, key, device, notification)),
  );
  return { outcome: 'attempted', attempts };
}

/** One push to one device's channel; a channel its push service says is gone is taken off the device, if asked. */
async function pushToDevice(
  providerFor: ProviderFor,
  key: UserKey,
  target: { readonly id: string; readonly push: PushChannel },
  notification: PushNotification,
  removeGone = true,
): Promise<DeviceAttempt> {
  const provider = await providerFor(target.push);
  const result: PushResult =
    typeof provider === 'string'
      ? { outcome: 'failed', reason: provider }
      : await provider.send(target.push, notification);
  if (result.outcome === 'gone' && removeGone) await removeDevicePushChannel(key, target.id, target.push);
  return {
    ...result,
    deviceId: target.id,
    channel: target.push.type,
    destination: describeChannel(target.push),
  };
}

/** What an unlink's pushes show: no names or ids, lock screens are public. */
export const unlinkedPush = {
  /** To the device that was unlinked. */
  removed: {
    title: 'This device was removed',
    body: 'If you did not do this, contact your administrator.',
  },
  /** To the user's other devices. */
  other: {
    title: 'A device was removed from your account',
    body: 'If you did not do this, contact your administrator.',
  },
};

/** Long enough for a phone that is off for a day, and then gone. */
const unlinkedTtlSeconds = 24 * 3600;

/**
 * The directory unlinked a device: the device is told through the channel the event carries (its record may be gone
 * already), the user's other linked devices with a channel through theirs. A retry names one of them. Not recorded
 * per device: a redelivered message shows the same line once more.
 */
async function deliverUnlinked(
  event: Extract<PushEvent, { kind: 'unlinked' }>,
  settings: PushWorkerSettings,
  options: { resolve?: Resolver; providers?: ProviderFor },
): Promise<PushDelivery> {
  const key = { directoryId: event.directoryId, identifier: event.identifier };
  const user = await getUser(key);
  const targets: { id: string; push: PushChannel; text: typeof unlinkedPush.removed; own: boolean }[] = [
    ...(event.channel
      ? [{ id: event.unlinkedDeviceId, push: event.channel, text: unlinkedPush.removed, own: true }]
      : []),
    ...(user?.devices ?? []).flatMap((device) =>
      device.push !== undefined &&
      device.status === DeviceStatus.linked &&
      device.id !== event.unlinkedDeviceId
        ? [{ id: device.id, push: device.push, text: unlinkedPush.other, own: false }]
        : [],
    ),
  ].filter((target) => event.deviceId === undefined || target.id === event.deviceId);
  if (targets.length === 0) return { outcome: 'nothing', why: 'no device with a push channel' };
  const providerFor = options.providers ?? pushProviders(event.directoryId, settings, options.resolve);
  const attempts = await Promise.all(
    targets.map(async (target): Promise<DeviceAttempt> => {
      const notification: PushNotification = {
        kind: 'unlinked',
        deviceId: event.unlinkedDeviceId,
        ...target.text,
        ttlSeconds: unlinkedTtlSeconds,
      };
      // The unlinked device's channel left with it.
      return pushToDevice(providerFor, key, target, notification, !target.own);
    }),
  );
  return { outcome: 'attempted', attempts };
}
