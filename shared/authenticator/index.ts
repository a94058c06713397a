/**
 * What a browser page needs of the authenticator: the device's API client, policy evaluation and the sealed answers.
 * Everything reachable from here runs in a browser; test/repository/browser-safe.test.ts keeps it so.
 */
export {
  type AnsweredRequest,
  Authenticator,
  type LinkOptions,
  type LinkRequestView,
  type LinkStateView,
  linkAuthenticator,
  type PendingAuthRequestView,
  parseQrCodeUrl,
  type UserChoice,
} from '#shared/authenticator/authenticator';
export {
  CodeNeededError,
  type DenialWithoutCodeBody,
  denialWithoutCode,
} from '#shared/authenticator/denial-without-code';
export {
  type DeviceState,
  type Evaluation,
  type EvaluationReason,
  type EvaluationType,
  evaluate,
} from '#shared/authenticator/evaluate';
export {
  distanceMetres,
  insideAny,
  insideFence,
  type Position,
  type Whereabouts,
} from '#shared/authenticator/geo';
export {
  type AuthenticatorHost,
  type BrowserAuthenticatorState,
  browserDeviceKeys,
  type DeviceKeys,
  type StateStore,
} from '#shared/authenticator/host';
export { type AuthMethodName, authMethodNames, type MethodSetup } from '#shared/authenticator/methods';
export {
  AuthenticatorStateError,
  type DeviceConfiguration,
  defaultConfiguration,
  deviceStateAt,
  type LinkedDevice,
} from '#shared/authenticator/state';
export type { ClientKey, StoredDeviceKey } from '#shared/client/client-key';
export { ApiRequestError, ResponseVerificationError } from '#shared/client/errors';
