import { randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import {
  assertionChallenge,
  counterAdvances,
  passkeyChallengeSeconds,
  relyingParty,
  type StoredPasskey,
} from '#shared/domain/passkey';
import { DeviceStatus, type User, type UserDevice, type UserKey } from '#shared/domain/user';
import { type ApiError, forbidden, invalidArgument, notFound } from '#shared/errors';
import { advancePasskeyCounter, getUser, putDevicePasskey, setPasskeyChallenge } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { webAuthnLibrary } from '#shared/webauthn/load';

/** A device's record with what its passkey left there. */
type DeviceRecord = UserDevice & {
  readonly passkey?: StoredPasskey;
  readonly passkeyChallenge?: { readonly challenge: string; readonly expiresAt: number };
};

/** ES256 (every platform authenticator), EdDSA and RS256 (Windows Hello). */
const algorithms = [-7, -8, -257];

/** The device's own record on its user's, while the device is linked. */
export function linkedDevice(user: User | undefined, deviceId: string): DeviceRecord {
  const device: DeviceRecord | undefined = user?.devices.find((candidate) => candidate.id === deviceId);
  if (!device || device.status !== DeviceStatus.linked) throw notFound('The device is not linked');
  return device;
}

/** The passkey a device registered, if any. */
export function devicePasskey(user: User | undefined, deviceId: string): StoredPasskey | undefined {
  const device: DeviceRecord | undefined = user?.devices.find((candidate) => candidate.id === deviceId);
  return device?.passkey;
}

/**
 * POST /device/v3/passkey/options: WebAuthn registration options for the device (a platform authenticator, user
 * verification required, no attestation), their challenge kept on the device's record for `passkeyChallengeSeconds`
 * and good for one registration.
 */
export async function passkeyRegistrationOptions(
  key: UserKey,
  deviceId: string,
  origin: string | undefined,
  now: Date,
) {
  const device = linkedDevice(await getUser(key), deviceId);
  refuseReplacing(device);
  const { rpId } = relyingParty(origin);
  const challenge = randomBytes(32).toString('base64url');
  const { generateRegistrationOptions } = await webAuthnLibrary();
  const options = await generateRegistrationOptions({
    rpName: rpId,
    rpID: rpId,
    userName: device.name ?? `Device ${deviceId.slice(0, 8)}`,
    userID: Buffer.from(deviceId.replaceAll('-', ''), 'hex'),
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: passkeyChallengeSeconds * 1000,
    attestationType: 'none',
    authenticatorSelection: {
      authenticatorAttachment: 'platform',
      userVerification: 'required',
      residentKey: 'discouraged',
    },
    supportedAlgorithmIDs: algorithms,
  });
  const expiresAt = Math.floor(now.getTime() / 1000) + passkeyChallengeSeconds;
  if (!(await setPasskeyChallenge(key, deviceId, { challenge: options.challenge, expiresAt })))
    throw notFound('The device is not linked');
  return options;
}

/**
 * A device registers one passkey, once. Whoever holds the device's key (a stolen session of the page, say) must not be
 * able to swap the passkey for one of their own and then approve without the user's biometric: to use another
 * passkey, the user links the browser again.
 */
function refuseReplacing(device: DeviceRecord): void {
  if (device.passkey) {
    throw forbidden(
      'This device has a passkey already; to use another one, unlink the device and link it again',
    );
  }
}

/**
 * PUT /device/v3/passkey: verifies the registration over the device's challenge and keeps the credential, the
 * device's first and only one. The challenge is used up by the write itself, so one registration counts once.
 */
export async function registerPasskey(
  key: UserKey,
  deviceId: string,
  registration: RegistrationResponseJSON,
  origin: string | undefined,
  now: Date,
): Promise<void> {
  const device = linkedDevice(await getUser(key), deviceId);
  refuseReplacing(device);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const pending = device.passkeyChallenge;
  if (!pending || pending.expiresAt <= nowSeconds) {
    throw forbidden(
      'registration: no registration is pending for this device, or its challenge expired; ask POST /device/v3/passkey/options again',
    );
  }
  const relying = relyingParty(origin);
  const { verifyRegistrationResponse } = await webAuthnLibrary();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response: registration,
      expectedChallenge: pending.challenge,
      expectedOrigin: relying.origin,
      expectedRPID: relying.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: algorithms,
    });
  } catch (error) {
    throw refusal('registration', 'The passkey registration', error);
  }
  if (!verified.verified) throw forbidden('registration: The passkey registration does not verify');
  const { credential } = verified.registrationInfo;
  const passkey: StoredPasskey = {
    id: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    ...(credential.transports ? { transports: credential.transports } : {}),
    registered: isoSeconds(now),
  };
  if (!(await putDevicePasskey(key, deviceId, passkey, pending.challenge, nowSeconds))) {
    throw forbidden('registration: its challenge was used or replaced meanwhile; ask for new options');
  }
}

/** What a device with a passkey is given with a pending request: the assertion it must send with its answer. */
export function assertionRequest(
  hashKey: Buffer,
  passkey: StoredPasskey,
  authRequestId: string,
  deviceId: string,
  origin: string | undefined,
) {
  return {
    challenge: assertionChallenge(hashKey, authRequestId, deviceId),
    rp_id: relyingParty(origin).rpId,
    allow_credentials: [passkey.id],
  };
}

/**
 * Checks the assertion that must come with every answer of a device that has a passkey (docs/protocol.md#passkeys):
 * by its credential, over this request's and device's challenge, for this origin and RP id, with the user verified,
 * and a counter that grows. The counter is moved with a conditional write before the answer is recorded, so one
 * assertion never answers twice. A device without a passkey must send none.
 */
export async function checkAnswerAssertion(input: {
  readonly passkey: StoredPasskey | undefined;
  readonly assertion: AuthenticationResponseJSON | null | undefined;
  readonly key: UserKey;
  readonly deviceId: string;
  readonly authRequestId: string;
  readonly hashKey: Buffer;
  readonly origin: string | undefined;
}): Promise<void> {
  const { passkey, assertion } = input;
  if (!passkey) {
    if (assertion) throw forbidden('webauthn: this device has no passkey to check an assertion against');
    return;
  }
  if (!assertion) {
    throw invalidArgument(
      'webauthn: this device has a passkey, so every answer needs its assertion over the challenge GET /device/v3/auths gave',
    );
  }
  if (assertion.id !== passkey.id) throw forbidden("webauthn: the assertion is not by this device's passkey");
  const { rpId, origin } = relyingParty(input.origin);
  const { verifyAuthenticationResponse } = await webAuthnLibrary();
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: assertionChallenge(input.hashKey, input.authRequestId, input.deviceId),
      expectedOrigin: origin,
      expectedRPID: rpId,
      requireUserVerification: true,
      credential: {
        id: passkey.id,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: passkey.counter,
        ...transportsOf(passkey),
      },
    });
  } catch (error) {
    throw refusal('webauthn', 'The passkey assertion', error);
  }
  if (!verified.verified) throw forbidden('webauthn: the passkey assertion does not verify: bad signature');
  const { newCounter } = verified.authenticationInfo;
  if (
    !counterAdvances(passkey.counter, newCounter) ||
    !(await advancePasskeyCounter(input.key, input.deviceId, passkey.id, newCounter))
  ) {
    throw forbidden('webauthn: the assertion was used before (its signature counter did not grow)');
  }
}

const transportsOf = (passkey: StoredPasskey) =>
  passkey.transports ? { transports: [...passkey.transports] } : {};

/**
 * Why WebAuthn verification failed, in the device's words: which check, never the expected values (the library's
 * messages quote the challenge it expected).
 */
const reasons: readonly [RegExp, string][] = [
  [/challenge/i, 'it is not over the challenge given for it'],
  [/origin/i, 'it was made on another origin'],
  [/RP ID|rpIdHash/i, 'it is for another relying party (RP id)'],
  [/User verification/i, 'the authenticator did not verify the user'],
  [/User (not )?present/i, 'the user was not present'],
  [/counter/i, 'it was used before (its signature counter did not grow)'],
  [/alg/i, 'its public key algorithm is not accepted'],
];

function refusal(field: string, what: string, error: unknown): ApiError {
  const message = error instanceof Error ? error.message : '';
  const reason = reasons.find(([pattern]) => pattern.test(message))?.[1] ?? 'it is malformed';
  return forbidden(`${field}: ${what} does not verify: ${reason}`);
}
