import { KeyType } from '#shared/domain/entity-key';
import { deviceAwaitingConfirmation, deviceLinked } from '#shared/domain/subject';
import { DeviceStatus } from '#shared/domain/user';
import { forbidden, notFound } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import { publishLinkRequest } from '#shared/events/publish-push';
import { getDirectory, getSdkKeyDirectory } from '#shared/store/directories';
import { putEntityHead } from '#shared/store/heads';
import { consumeLinkCode, getLinkCode } from '#shared/store/link-codes';
import { getDirectorySettings } from '#shared/store/push-fatigue';
import { markDeviceAwaitingConfirmation, markDeviceLinked } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { newDeviceRequirement } from '#shared/use-cases/device-confirmation';
import { addEntityKey, checkPublicKey } from '#shared/use-cases/entity-keys';

export interface DeviceLinkInput {
  /** Absent when the device links with the code alone (the web authenticator), which the directory may turn off. */
  readonly sdkKey?: string | null;
  readonly code: string;
  readonly publicKey: string;
  readonly name?: string | null;
  readonly type?: string | null;
}

/**
 * What the device is told: its id and directory; while it awaits confirmation, that and until when; while it cools
 * off, from when it may answer (docs/protocol.md#device-confirmation).
 */
export interface LinkResult {
  readonly device_id: string;
  readonly directory_id: string;
  readonly status?: 'awaiting-confirmation';
  readonly expires?: string;
  readonly answers_from?: string;
}

/** What the audit trail records of a link (the device API's one unsigned state change). */
export interface LinkedDevice {
  readonly organizationId: string;
  readonly directoryId: string;
  readonly identifier: string;
  readonly deviceId: string;
  readonly kid: string;
}

/**
 * A device links itself (this service's own device API): a valid code, an SDK key of the code's directory unless the
 * directory lets devices link with the code alone (web linking, on by default), and the device's public key, which it
 * will sign its requests with and have answers encrypted to. The code is used up conditionally, so of two devices
 * racing with one code exactly one links.
 */
export async function linkDevice(
  input: DeviceLinkInput,
  now: Date,
  recordLink: (link: LinkedDevice) => Promise<void> = async () => undefined,
): Promise<LinkResult> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const link = await getLinkCode(input.code, nowSeconds);
  if (!link) throw notFound('The linking code is unknown or has expired');
  if (input.sdkKey == null) await requireWebLinking(link.directoryId);
  else await requireSdkKeyOf(link.directoryId, input.sdkKey);
  checkPublicKey(input.publicKey);
  if (!(await consumeLinkCode(input.code, nowSeconds)))
    throw notFound('The linking code is unknown or has expired');
  const key = { directoryId: link.directoryId, identifier: link.identifier };
  const requirement = await newDeviceRequirement(key, link.deviceId, nowSeconds);
  const details = { name: input.name ?? null, type: input.type ?? null, updated: isoSeconds(now) };
  const linked =
    requirement.kind === 'confirmation'
      ? await markDeviceAwaitingConfirmation(key, link.deviceId, details, {
          requested: isoSeconds(now),
          expiresAt: requirement.expiresAt,
          requester: link.requester,
          identity: link.identity,
          ...(link.requesterKid ? { requesterKid: link.requesterKid } : {}),
        })
      : await markDeviceLinked(key, link.deviceId, {
          ...details,
          status: DeviceStatus.linked,
          ...(requirement.kind === 'cooling-off' ? { answersFrom: requirement.answersFrom } : {}),
        });
  if (!linked) throw notFound('The device was unlinked before it could link');
  const entity = { type: 'dev', id: link.deviceId } as const;
  await putEntityHead(entity, {
    // Awaiting confirmation, the device may only ask how its link stands (docs/protocol.md#device-confirmation).
    status: requirement.kind === 'confirmation' ? deviceAwaitingConfirmation : deviceLinked,
    userId: link.userId,
    organizationId: link.organizationId,
    directoryId: link.directoryId,
    identifier: link.identifier,
  });
  const { kid } = await addEntityKey(entity, { publicKeyPem: input.publicKey, keyType: KeyType.both }, now);
  await recordLink({ ...key, organizationId: link.organizationId, deviceId: link.deviceId, kid });
  const ids = { device_id: link.deviceId, directory_id: link.directoryId };
  // The completion webhook waits for the confirmation when there is one to wait for; the user's devices are told.
  if (requirement.kind === 'confirmation') {
    await publishLinkRequest(key, link.deviceId);
    return {
      ...ids,
      status: 'awaiting-confirmation',
      expires: isoSeconds(new Date(requirement.expiresAt * 1000)),
    };
  }
  await publishEvent({
    kind: 'device-link-completion',
    organizationId: link.organizationId,
    directoryId: link.directoryId,
    deviceId: link.deviceId,
    audience: link.requester,
    identity: link.identity,
    ...(link.requesterKid ? { audienceKid: link.requesterKid } : {}),
  });
  return requirement.kind === 'cooling-off'
    ? { ...ids, answers_from: isoSeconds(new Date(requirement.answersFrom * 1000)) }
    : ids;
}

async function requireSdkKeyOf(directoryId: string, sdkKey: string): Promise<void> {
  const sdkKeyDirectory = await getSdkKeyDirectory(sdkKey);
  const directory =
    sdkKeyDirectory && (await getDirectory(sdkKeyDirectory.organizationId, sdkKeyDirectory.directoryId));
  if (!directory || directory.id !== directoryId || !directory.sdk_keys.includes(sdkKey)) {
    throw forbidden('The SDK key is not one of the directory this code links to');
  }
}

async function requireWebLinking(directoryId: string): Promise<void> {
  if (!(await getDirectorySettings(directoryId)).webLinking) {
    throw forbidden(
      'The directory links devices through its own app only: this link needs one of its SDK keys (sdk_key)',
    );
  }
}
