/** What the service uses of @simplewebauthn/server, in one module that functions load only when a passkey is in play. */
export {
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
