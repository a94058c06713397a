import type * as v from 'valibot';
import { minimumModulusBits } from '#shared/protocol/pem';
import {
  answerAuthRequestBody,
  createAuthRequestBody,
  startSessionBody,
  usernameBody,
  verifyTotpBody,
} from '#shared/http/schemas/auth-requests';
import { listAuditRecordsBody } from '#shared/http/schemas/audit';
import { displayName, flag, httpUrl, isoDate, uuid } from '#shared/http/schemas/common';
import {
  endDeviceSessionBody,
  answerLinkRequestBody,
  linkDeviceBody,
  startDeviceLinkBody,
  unlinkDeviceBody,
  registerPushBody,
  registerPasskeyBody,
} from '#shared/http/schemas/devices';
import {
  createDirectoryBody,
  directoryIdBody,
  listDirectoriesByIdsBody,
  removeSdkKeyBody,
  updateDirectoryBody,
} from '#shared/http/schemas/directories';
import { keyBodies, publicKey } from '#shared/http/schemas/keys';
import {
  createServiceBody,
  listServicesByIdsBody,
  serviceIdBody,
  setServicePolicyBody,
  updateServiceBody,
} from '#shared/http/schemas/services';
import { identifier, identifierBody } from '#shared/http/schemas/users';

/** A schema of shared/http/schemas under a name, with what JSON Schema cannot say of it. */
export interface NamedSchema {
  readonly schema: v.GenericSchema;
  readonly description?: string;
  /** Notes on properties whose rules are checks JSON Schema cannot express, by property name. */
  readonly notes?: Readonly<Record<string, string>>;
}

const promptLine =
  'Shown on the device: no control characters, bidirectional controls or invisible characters (docs/protocol.md#limits).';
const promptLines =
  'Shown on the device: tabs and line breaks allowed, no other control characters, bidirectional controls or invisible characters.';
const username =
  "A user's identifier in the service's directory, or a user_push_id. null names nobody and is answered like an unknown user (404).";
const directoryServicesOnly = 'Directory Services only (ARG-001 for an Organization Service).';
const keyId = { key_id: 'The key id (docs/protocol.md#key-ids).' };
const keyExpiry = { date_expires: 'When the key stops working; null: never.' };
const addKeyNotes = {
  key_type: '0 signs and encrypts (the default), 1 encrypts only, 2 signs only.',
  active: 'true when absent or null.',
  ...keyExpiry,
};
const updateKeyNotes = { ...keyId, ...keyExpiry };
const serviceNotes = {
  icon: 'Shown on devices; the generic icon when null.',
  callback_url: 'Where the service gets its webhooks (docs/protocol.md#webhooks); null: none.',
  active: 'An inactive service cannot create authorization requests.',
};

/** The pieces several bodies share, each one component the bodies refer to. */
export const sharedSchemas: Readonly<Record<string, NamedSchema>> = {
  Uuid: { schema: uuid, description: 'A UUID, in either letter case; stored and returned in lowercase.' },
  Flag: {
    schema: flag,
    description:
      'A flag: JSON true or false, or the strings "true" or "false" in any letter case ("True" is true). Nothing else: "yes", 1, "1" and "" are ARG-001. Stored and returned as a JSON boolean.',
  },
  HttpUrl: {
    schema: httpUrl,
    description:
      'An absolute http or https URL with a host, with no spaces, control characters or invisible characters.',
  },
  IsoDateTime: {
    schema: isoDate,
    description:
      'An ISO 8601 date-time with a zone (2017-10-03T22:50:15Z, 2017-10-03T15:50:15.5-07:00); kept in UTC to the second.',
  },
  Identifier: {
    schema: identifier,
    description: "The application's identifier for a directory user; no control characters.",
  },
  DisplayName: {
    schema: displayName,
    description: `A name devices show, trimmed and not empty. ${promptLine}`,
  },
  PublicKey: {
    schema: publicKey,
    description: `A PEM RSA public key of ${minimumModulusBits} (KEY-001 below) to 16384 bits (ARG-001 above).`,
  },
};

const directoryKeyBodies = keyBodies('directory_id');
const serviceKeyBodies = keyBodies('service_id');

/** Every request body, by the name the document gives it: the very schemas the handlers validate with. */
export const requestBodies = {
  CreateDirectoryBody: { schema: createDirectoryBody },
  ListAuditRecordsBody: {
    schema: listAuditRecordsBody,
    description: 'Filters are exact matches; at most 31 days from since to until.',
    notes: {
      since: 'The first instant of the range (inclusive).',
      until: 'The end of the range (exclusive), later than since.',
      user: "A directory user's identifier.",
      service: 'A service id.',
      cursor: 'The cursor of the previous page, with the same range and filters.',
      limit: 'Most records in the answer; 100 when absent.',
    },
  },
  ListDirectoriesByIdsBody: { schema: listDirectoriesByIdsBody },
  UpdateDirectoryBody: {
    schema: updateDirectoryBody,
    description: 'Absent fields stay as they are; null clears android_key, ios_p12 and webhook_url.',
    notes: {
      android_key:
        "Any string, as LaunchKey took: a Firebase service-account JSON file pushes to the directory's Android app; anything else is kept, sealed, and shown as given, but cannot push.",
      ios_p12:
        "Base64 (line breaks allowed) of a password-free PKCS#12 in DER with an intact MAC; only its certificate's SHA-256 fingerprint is kept.",
      webhook_url: 'Where device link completions go (docs/protocol.md#webhooks).',
    },
  },
  DirectoryIdBody: { schema: directoryIdBody },
  RemoveSdkKeyBody: { schema: removeSdkKeyBody },
  AddDirectoryKeyBody: { schema: directoryKeyBodies.add, notes: addKeyNotes },
  ListDirectoryKeysBody: { schema: directoryKeyBodies.list },
  UpdateDirectoryKeyBody: { schema: directoryKeyBodies.update, notes: updateKeyNotes },
  RemoveDirectoryKeyBody: { schema: directoryKeyBodies.remove, notes: keyId },
  CreateServiceBody: { schema: createServiceBody, notes: serviceNotes },
  ListServicesByIdsBody: { schema: listServicesByIdsBody },
  UpdateServiceBody: {
    schema: updateServiceBody,
    description:
      'Absent fields stay as they are; null clears description, icon and callback_url and leaves name and active as they are.',
    notes: serviceNotes,
  },
  ServiceIdBody: { schema: serviceIdBody },
  SetServicePolicyBody: {
    schema: setServicePolicyBody,
    notes: {
      policy:
        'A service policy in any accepted encoding (docs/protocol.md#policies); a problem is SVC-002 naming the field.',
    },
  },
  AddServiceKeyBody: { schema: serviceKeyBodies.add, notes: addKeyNotes },
  ListServiceKeysBody: { schema: serviceKeyBodies.list },
  UpdateServiceKeyBody: { schema: serviceKeyBodies.update, notes: updateKeyNotes },
  RemoveServiceKeyBody: { schema: serviceKeyBodies.remove, notes: keyId },
  CreateAuthRequestBody: {
    schema: createAuthRequestBody,
    notes: {
      username,
      context: promptLines,
      title: `${promptLine} ${directoryServicesOnly}`,
      ttl: 'Seconds the request stays pending; 300 when absent.',
      push_title: `${promptLine} ${directoryServicesOnly}`,
      push_body: `${promptLines} ${directoryServicesOnly}`,
      denial_reasons: `None (absent, null or empty), or 2 to 25 reasons with unique ids and unique texts, at least one with fraud true; the texts are shown on the device. ${directoryServicesOnly} The directory must have denial_context_inquiry_enabled.`,
      policy:
        "A request policy in any accepted encoding (docs/protocol.md#policies), merged with the service's, the stricter winning; a problem is SVC-002.",
    },
  },
  StartSessionBody: {
    schema: startSessionBody,
    notes: { username, auth_request: 'The authorization request that began the session, if any.' },
  },
  UsernameBody: { schema: usernameBody, notes: { username } },
  VerifyTotpBody: {
    schema: verifyTotpBody,
    notes: { otp: 'The code the user gave; anything but the 6 digits of the current code fails.' },
  },
  StartDeviceLinkBody: {
    schema: startDeviceLinkBody,
    notes: { ttl: 'Seconds the linking code stays valid; 300 when absent.' },
  },
  UnlinkDeviceBody: { schema: unlinkDeviceBody },
  AnswerLinkRequestBody: {
    schema: answerLinkRequestBody,
    notes: { approve: 'true links the new device; false refuses it, and it is gone.' },
  },
  IdentifierBody: { schema: identifierBody },
  LinkDeviceBody: {
    schema: linkDeviceBody,
    notes: {
      sdk_key:
        "An SDK key of the linking code's directory. Without one the code alone links (the web authenticator), unless the directory turned web linking off (HTTP-403).",
      code: 'The linking code POST /directory/v3/devices gave.',
      public_key: 'The key the device signs its requests with and has answers encrypted to.',
      name: promptLine,
      type: promptLine,
    },
  },
  AnswerAuthRequestBody: {
    schema: answerAuthRequestBody,
    notes: {
      auth_jwe:
        "The answer, sealed to the requester's key (docs/protocol.md#auth_jwe). Required, unless the body is a deny.",
      deny: 'Instead of the sealed packages, a denial of a request with number matching without its code: {denial_reason, fraud}, the reason one the request offers (or null) and fraud its fraud flag (false without one). The service writes the DENIED package itself (docs/protocol.md#number-matching).',
      auth: 'The legacy package, base64 (docs/protocol.md#answer-packages).',
      auth_v1: 'The v1 package, base64, for GET /v1/poll (docs/protocol.md#legacy-v1).',
      webauthn:
        "The passkey's assertion (AuthenticationResponseJSON) over the challenge GET /device/v3/auths gave; required from a device with a passkey, refused from one without (docs/protocol.md#passkeys).",
    },
  },
  EndDeviceSessionBody: { schema: endDeviceSessionBody },
  RegisterPushBody: {
    schema: registerPushBody,
    notes: {
      webpush:
        "The browser's PushSubscription.toJSON(); its endpoint must pass the webhook address guard (docs/protocol.md#push).",
    },
  },
  RegisterPasskeyBody: {
    schema: registerPasskeyBody,
    notes: {
      registration:
        "The browser's RegistrationResponseJSON from navigator.credentials.create() with the options of POST /device/v3/passkey/options (docs/protocol.md#passkeys).",
    },
  },
} as const satisfies Readonly<Record<string, NamedSchema>>;

export type RequestBodyName = keyof typeof requestBodies;
