import type { Evaluation } from '#shared/authenticator/evaluate';
import { encryptJson } from '#shared/protocol/jwe';
import {
  LegacyPackageError,
  sealLegacyAuthPackage,
  sealV1AuthPackage,
} from '#shared/protocol/legacy-package-seal';
import { parseRsaPublicKeyPem } from '#shared/protocol/rsa-pem';

/** Who the answer is for: the requesting entity's key, and the service's for the v1 package. */
export interface AnswerRecipients {
  readonly requester: { readonly kid: string; readonly public_key: string };
  readonly service_key: { readonly kid: string; readonly public_key: string } | null;
}

export interface AnswerPackages {
  readonly auth_jwe: string;
  /** The deprecated v3 package; null when it does not fit one RSA block of the requester's key. */
  readonly auth: string | null;
  /** The v1 poll package; null when the service has no key to encrypt it to. */
  readonly auth_v1: string | null;
}

/**
 * The device's answer, end-to-end encrypted: `auth_jwe` (docs/protocol.md#answer-packages) and the legacy `auth` (docs/protocol.md#answer-packages) to the
 * entity that asked, which the service relays unopened; the v1 package (docs/protocol.md#legacy-v1) to the service's key.
 */
export async function sealAnswer(
  recipients: AnswerRecipients,
  answer: { authRequest: string; deviceId: string; servicePins: readonly string[]; evaluation: Evaluation },
): Promise<AnswerPackages> {
  const { evaluation } = answer;
  const requesterKey = parseRsaPublicKeyPem(recipients.requester.public_key);
  const authorized = evaluation.type === 'AUTHORIZED';
  const authJwe = await encryptJson(
    {
      type: evaluation.type,
      reason: evaluation.reason,
      denial_reason: evaluation.denialReason,
      auth_request: answer.authRequest,
      device_id: answer.deviceId,
      service_pins: answer.servicePins,
      auth_policy: evaluation.authPolicy,
      auth_methods: evaluation.authMethods,
    },
    { kid: recipients.requester.kid, publicKey: requesterKey.jwk },
  );
  const auth = await fitting(() =>
    sealLegacyAuthPackage(
      {
        auth_request: answer.authRequest,
        response: authorized,
        device_id: answer.deviceId,
        service_pins: answer.servicePins,
      },
      requesterKey,
    ),
  );
  const serviceKey = recipients.service_key;
  const authV1 = serviceKey
    ? await fitting(() =>
        sealV1AuthPackage(
          {
            response: authorized,
            auth_request: answer.authRequest,
            device_id: answer.deviceId,
            app_pins: answer.servicePins.join(','),
          },
          parseRsaPublicKeyPem(serviceKey.public_key),
        ),
      )
    : null;
  return { auth_jwe: authJwe, auth, auth_v1: authV1 };
}

// A legacy package is one RSA block; a reader that needs it has a key big enough, so a miss only drops that package.
async function fitting(seal: () => Promise<string>): Promise<string | null> {
  try {
    return await seal();
  } catch (error) {
    if (error instanceof LegacyPackageError && error.reason === 'too_large') return null;
    throw error;
  }
}
