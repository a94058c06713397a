import { recordOperatorAction } from '#shared/audit/operator-action-record';
import { deviceLinked } from '#shared/domain/subject';
import { DeviceStatus, type PendingConfirmation, type UserKey } from '#shared/domain/user';
import { clip, idEchoLength } from '#shared/echo';
import { ApiError, forbidden, notFound } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import type { Entity } from '#shared/protocol/entity';
import {
  deleteEntityHead,
  getHead,
  type HeadItem,
  ownershipOf,
  setDeviceHeadStatus,
} from '#shared/store/heads';
import {
  confirmPendingDevice,
  getUser,
  liftDeviceHold,
  removePendingConfirmation,
} from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { mayConfirm } from '#shared/use-cases/device-confirmation';
import { type OperatorOrConsoleAdmin, refuseForeignDirectory } from '#shared/use-cases/console-scope';
import { deviceUserKey } from '#shared/use-cases/device-user-key';

// Apart from the reads of device-confirmation.ts: only what confirms a link announces it on the webhook queue.

/**
 * POST /device/v3/link-requests/{device_id}: a device that may answer for the user approves or refuses a new device.
 * Approved, the new device is LINKED and the link's completion webhook goes out; refused, it is gone with its key.
 */
export async function answerLinkRequest(
  device: Entity,
  head: HeadItem | undefined,
  newDeviceId: string,
  approve: boolean,
  now: Date,
): Promise<void> {
  const key = deviceUserKey(head);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const user = await getUser(key);
  if (!user || !mayConfirm(user, device.id, nowSeconds))
    throw forbidden('This device cannot confirm new devices yet: it is still cooling off');
  const waiting = user.devices.find((candidate) => candidate.id === newDeviceId && candidate.confirmation);
  if (!waiting?.confirmation) throw notFound('No such device waits for confirmation');
  if (waiting.confirmation.expiresAt <= nowSeconds)
    throw new ApiError('HTTP-408', 'The new device waited too long: its link request has expired');
  if (approve) {
    await confirmLink(key, user.organizationId, newDeviceId, waiting.confirmation, now, nowSeconds);
    return;
  }
  if (!(await removePendingConfirmation(key, newDeviceId)))
    throw notFound('No such device waits for confirmation');
  await deleteEntityHead({ type: 'dev', id: newDeviceId });
}

/**
 * The override of the device confirmation, for a user who lost the phone that would confirm (`admin device confirm`,
 * the console's helpdesk): a device waiting for confirmation is linked, even after its window, and a device cooling
 * off may answer at once. Audited. A device that does neither is HTTP-404.
 */
export async function overrideDeviceConfirmation(
  input: { directoryId: string; identifier: string; deviceId: string },
  // The operator at the admin CLI (`admin-cli:<account>`), or a console admin whose record names the outcome.
  by: OperatorOrConsoleAdmin,
  now: Date,
): Promise<{ readonly outcome: 'confirmed' | 'cooling-off-ended' }> {
  const head = await getHead({ type: 'dir', id: input.directoryId });
  const organizationId = ownershipOf(head)?.organizationId;
  if (organizationId === undefined)
    throw notFound(`There is no directory ${clip(input.directoryId, idEchoLength)}`);
  refuseForeignDirectory(by, organizationId, input.directoryId);
  const key = { directoryId: input.directoryId, identifier: input.identifier };
  const entry = (await getUser(key))?.devices.find((candidate) => candidate.id === input.deviceId);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  let outcome: 'confirmed' | 'cooling-off-ended';
  if (entry?.status === DeviceStatus.linkPending && entry.confirmation) {
    await confirmLink(key, organizationId, entry.id, entry.confirmation, now);
    outcome = 'confirmed';
  } else if (
    entry?.status === DeviceStatus.linked &&
    entry.answersFrom !== undefined &&
    entry.answersFrom > nowSeconds &&
    (await liftDeviceHold(key, entry.id))
  ) {
    outcome = 'cooling-off-ended';
  } else {
    throw notFound(
      `The device ${clip(input.deviceId, idEchoLength)} of this user neither waits for confirmation nor cools off`,
    );
  }
  if ('operator' in by)
    await recordOperatorAction(
      {
        organizationId,
        actor: by.operator,
        operation: 'admin device confirm',
        directoryId: input.directoryId,
        user: input.identifier,
        deviceId: input.deviceId,
        target: outcome,
      },
      now,
    );
  return { outcome };
}

/**
 * Links a device that waited for confirmation: the user's record first (the decision, one conditional write), then
 * the head that lets it sign, then the completion webhook the link's requester has waited for.
 */
async function confirmLink(
  key: UserKey,
  organizationId: string,
  deviceId: string,
  confirmation: PendingConfirmation,
  now: Date,
  nowSeconds?: number,
): Promise<void> {
  if (!(await confirmPendingDevice(key, deviceId, isoSeconds(now), nowSeconds)))
    throw notFound('No such device waits for confirmation');
  await setDeviceHeadStatus(deviceId, deviceLinked);
  await publishEvent({
    kind: 'device-link-completion',
    organizationId,
    directoryId: key.directoryId,
    deviceId,
    audience: confirmation.requester,
    identity: confirmation.identity,
    ...(confirmation.requesterKid ? { audienceKid: confirmation.requesterKid } : {}),
  });
}
