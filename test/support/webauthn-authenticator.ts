import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** What a test may make an authenticator (or the browser around it) get wrong. */
export interface Tampering {
  /** The origin the browser writes into clientDataJSON; the authenticator's own otherwise. */
  readonly origin?: string;
  /** The RP id whose hash the authenticator signs; the one it was asked for otherwise. */
  readonly rpId?: string;
  /** Whether the user-verified flag is set (true unless told). */
  readonly userVerified?: boolean;
  /** The signature counter to report instead of the next one. */
  readonly counter?: number;
  /** The challenge to sign instead of the one given. */
  readonly challenge?: string;
}

const flags = { userPresent: 0x01, userVerified: 0x04, attestedCredential: 0x40 } as const;

/**
 * A platform authenticator in software, as the WebAuthn Level 3 specification (sections 6.1 and 6.5) describes its
 * output: a P-256 key made with node:crypto, attestation "none", assertions signed over authenticatorData ‖
 * SHA-256(clientDataJSON). It answers the JSON the browser's `PublicKeyCredential.toJSON()` gives, so a test drives
 * the API exactly as a page would.
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** The signature counter the next assertion reports, plus one. */
  counter = 0;

  constructor(readonly origin: string) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** navigator.credentials.create() with these options. */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    tampering: Tampering = {},
  ): RegistrationResponseJSON {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.authenticatorHeader(tampering.rpId ?? options.rp.id ?? '', tampering, 0, flags.attestedCredential),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      Buffer.from(isoCBOR.encode(coseKey)),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, never> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, never>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData(
          'webauthn.create',
          tampering.challenge ?? options.challenge,
          tampering,
        ),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get() for a request's `webauthn` (challenge and RP id as GET /device/v3/auths gives them). */
  assert(
    request: { challenge: string; rp_id: string },
    tampering: Tampering = {},
  ): AuthenticationResponseJSON {
    this.counter += 1;
    const authData = this.authenticatorHeader(
      tampering.rpId ?? request.rp_id,
      tampering,
      tampering.counter ?? this.counter,
      0,
    );
    const clientDataJSON = this.clientData(
      'webauthn.get',
      tampering.challenge ?? request.challenge,
      tampering,
    );
    const signed = Buffer.concat([
      authData,
      createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest(),
    ]);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: sign('sha256', signed, this.privateKey).toString('base64url'),
      },
    };
  }

  /** rpIdHash ‖ flags ‖ signCount (big-endian), the start of every authenticatorData. */
  private authenticatorHeader(rpId: string, tampering: Tampering, counter: number, more: number): Buffer {
    const verified = tampering.userVerified ?? true;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([
      createHash('sha256').update(rpId).digest(),
      Buffer.from([flags.userPresent | (verified ? flags.userVerified : 0) | more]),
      count,
    ]);
  }

  private clientData(type: string, challenge: string, tampering: Tampering): string {
    return Buffer.from(
      JSON.stringify({ type, challenge, origin: tampering.origin ?? this.origin, crossOrigin: false }),
    ).toString('base64url');
  }
}
