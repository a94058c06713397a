import { constants, privateDecrypt, publicEncrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildV1Credentials,
  decryptLegacyAuthPackage,
  decryptV1AuthPackage,
  encryptLegacyAuthPackage,
  encryptV1AuthPackage,
  LegacyPackageError,
  maxOaepSha1Plaintext,
  openV1SecretKey,
  v1Error,
  v1MessageCodes,
  v1Messages,
  verifyV1Signature,
} from '#shared/protocol/legacy-packages';
import { rsaKeyPair } from '#test/support/keys';
import { pythonKey, pythonVector } from '#test/unit/shared/protocol/legacy-vectors';

const service = rsaKeyPair();
const other = rsaKeyPair();
const service4096 = rsaKeyPair(4096);

const v1Package = {
  response: true,
  auth_request: 'kufiltx1w8zydiisj4fz3p8369bgketi',
  device_id: '3e5fa1',
  app_pins: '1234,5678,9012,3456,7890',
};
const v3Package = {
  auth_request: '7c2a4f3e-5b1d-11e7-9b5a-0242ac110003',
  response: false,
  device_id: '0b2e7a3c-5b1d-11e7-9b5a-0242ac110003',
  service_pins: ['1234', '5678', '9012', '3456', '7890'],
};

function failure(run: () => unknown): LegacyPackageError {
  try {
    run();
  } catch (error) {
    if (error instanceof LegacyPackageError) return error;
    throw error;
  }
  throw new Error('expected a LegacyPackageError');
}

function flipByte(base64: string, index: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[index] = (bytes[index] ?? 0) ^ 0x80;
  return bytes.toString('base64');
}

/** Decrypts as the old clients did, independently of the module: OAEP with SHA-1. */
function oaepSha1Plaintext(auth: string, key = service.privateKey): string {
  return privateDecrypt(
    { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    Buffer.from(auth, 'base64'),
  ).toString();
}

describe('the v1 auth package', () => {
  it.each([
    ['2048-bit', service],
    ['4096-bit', service4096],
  ])('round-trips with a %s Service key, as one block of one-line Base64', (_, pair) => {
    const auth = encryptV1AuthPackage(v1Package, pair.publicKey);
    expect(auth).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(auth, 'base64')).toHaveLength(
      (pair.publicKey.asymmetricKeyDetails?.modulusLength ?? 0) / 8,
    );
    expect(decryptV1AuthPackage(auth, pair.privateKey)).toEqual(v1Package);
    expect(
      decryptV1AuthPackage(
        encryptV1AuthPackage({ ...v1Package, response: false }, pair.publicKey),
        pair.privateKey,
      ),
    ).toEqual({
      ...v1Package,
      response: false,
    });
  });

  it('is the docs/protocol.md#legacy-v1 JSON under RSA-OAEP SHA-1, which every v1 client decrypted with', () => {
    const auth = encryptV1AuthPackage(v1Package, service.publicKey);
    expect(oaepSha1Plaintext(auth)).toBe(
      '{"response":true,"auth_request":"kufiltx1w8zydiisj4fz3p8369bgketi","device_id":"3e5fa1","app_pins":"1234,5678,9012,3456,7890"}',
    );
    expect(() =>
      privateDecrypt(
        { key: service.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        Buffer.from(auth, 'base64'),
      ),
    ).toThrow();
  });

  it('writes response as a string on request, for the Ruby gem and the 2013 PHP library', () => {
    const auth = encryptV1AuthPackage({ ...v1Package, response: false }, service.publicKey, {
      responseAs: 'string',
    });
    expect(decryptV1AuthPackage(auth, service.privateKey)).toEqual({ ...v1Package, response: 'false' });
  });

  it('reads the package Python made, wrapped at 64 columns with CRLF as the v1 API sent it', () => {
    expect(pythonVector.auth).toContain('\r\n');
    expect(decryptV1AuthPackage(pythonVector.auth, pythonKey)).toEqual({
      response: true,
      auth_request: 'kufiltx1w8zydiisj4fz3p8369bgketi',
      device_id: '3e5fa1',
      app_pins: '1234,5678',
    });
  });

  it('refuses a package too large for one block', () => {
    const big = { ...v1Package, device_id: 'd'.repeat(200) };
    expect(failure(() => encryptV1AuthPackage(big, service.publicKey)).reason).toBe('too_large');
    expect(
      decryptV1AuthPackage(encryptV1AuthPackage(big, service4096.publicKey), service4096.privateKey),
    ).toEqual(big);
  });
});

describe('the deprecated v3 auth package', () => {
  it.each([
    ['2048-bit', service],
    ['4096-bit', service4096],
  ])('round-trips with a %s key', (_, pair) => {
    const auth = encryptLegacyAuthPackage(v3Package, pair.publicKey);
    expect(decryptLegacyAuthPackage(auth, pair.privateKey)).toEqual(v3Package);
  });

  it('is the docs/protocol.md#answer-packages JSON under RSA-OAEP SHA-1', () => {
    const auth = encryptLegacyAuthPackage(v3Package, service.publicKey);
    expect(JSON.parse(oaepSha1Plaintext(auth))).toEqual(v3Package);
    expect(Object.keys(JSON.parse(oaepSha1Plaintext(auth)) as object)).toEqual([
      'auth_request',
      'response',
      'device_id',
      'service_pins',
    ]);
  });

  it('fits exactly 214 bytes into a 2048-bit block and refuses 215', () => {
    expect(maxOaepSha1Plaintext(service.publicKey)).toBe(214);
    expect(maxOaepSha1Plaintext(service4096.publicKey)).toBe(470);
    const base = JSON.stringify({ ...v3Package, device_id: '' }).length;
    const fitting = { ...v3Package, device_id: 'd'.repeat(214 - base) };
    expect(JSON.stringify(fitting)).toHaveLength(214);
    expect(
      decryptLegacyAuthPackage(encryptLegacyAuthPackage(fitting, service.publicKey), service.privateKey),
    ).toEqual(fitting);
    const error = failure(() =>
      encryptLegacyAuthPackage({ ...fitting, device_id: `${fitting.device_id}d` }, service.publicKey),
    );
    expect(error.reason).toBe('too_large');
    expect(error.message).toMatch(/215 bytes.*214/);
  });

  it('counts bytes, not characters', () => {
    const base = JSON.stringify({ ...v3Package, device_id: '' }).length;
    const wide = { ...v3Package, device_id: 'é'.repeat(Math.ceil((215 - base) / 2)) };
    expect(JSON.stringify(wide).length).toBeLessThanOrEqual(214);
    expect(failure(() => encryptLegacyAuthPackage(wide, service.publicKey)).reason).toBe('too_large');
  });
});

describe('decryption refusals', () => {
  const auth = encryptLegacyAuthPackage(v3Package, service.publicKey);

  it.each([
    ['v1', decryptV1AuthPackage],
    ['v3', decryptLegacyAuthPackage],
  ])('%s: refuses another key, a tampered block, bad Base64 and a non-JSON plaintext', (_, decrypt) => {
    expect(failure(() => decrypt(auth, other.privateKey)).reason).toBe('decryption');
    expect(failure(() => decrypt(flipByte(auth, 9), service.privateKey)).reason).toBe('decryption');
    expect(failure(() => decrypt(auth.slice(4), service.privateKey)).reason).toBe('decryption');
    expect(failure(() => decrypt('%%%', service.privateKey)).reason).toBe('base64');
    expect(failure(() => decrypt('', service.privateKey)).reason).toBe('base64');
    const notJson = publicEncrypt(
      { key: service.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      Buffer.from('response=true'),
    ).toString('base64');
    expect(failure(() => decrypt(notJson, service.privateKey)).reason).toBe('format');
    const pkcs1 = publicEncrypt(
      { key: service.publicKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(JSON.stringify(v3Package)),
    ).toString('base64');
    expect(failure(() => decrypt(pkcs1, service.privateKey)).reason).toBe('decryption');
  });
});

describe('v1 errors', () => {
  it('builds the pending answer byte for byte as the v1 API recorded it', () => {
    const recorded =
      '{"successful": false, "status_code": 400, "message": "Pending response", "message_code": 70403, "response": ""}';
    const body = v1Error(400, v1Messages.pollPending ?? '', v1MessageCodes.pollPending ?? 0);
    expect(body).toEqual(JSON.parse(recorded));
    expect(JSON.stringify(body)).toBe(recorded.replace(/": /g, '":').replace(/, "/g, ',"'));
  });

  it('builds the unknown-request answer the v1 API recorded', () => {
    expect(
      v1Error(400, v1Messages.pollNoPendingRequest ?? '', v1MessageCodes.pollNoPendingRequest ?? 0),
    ).toEqual({
      successful: false,
      status_code: 400,
      message: 'There is no pending request',
      message_code: 70402,
      response: '',
    });
  });

  it('knows the poll codes the old clients branch on, and cannot be changed', () => {
    expect(v1MessageCodes).toMatchObject({
      pollInvalidRequest: 70401,
      pollNoPendingRequest: 70402,
      pollPending: 70403,
      pollExpired: 70404,
    });
    expect(Object.isFrozen(v1MessageCodes)).toBe(true);
    expect(Object.isFrozen(v1Messages)).toBe(true);
  });
});

describe('the credential functions re-exported here', () => {
  it('work together end to end', () => {
    const apiPair = rsaKeyPair();
    const credentials = buildV1Credentials({
      appKey: '9999999999',
      secret: 'secret',
      apiPublicKey: apiPair.publicKey,
      servicePrivateKey: service.privateKey,
      now: new Date('2020-01-01T00:00:00Z'),
    });
    expect(openV1SecretKey(credentials.secret_key, [apiPair.privateKey]).secret).toBe('secret');
    expect(verifyV1Signature(credentials.secret_key, credentials.signature, [service.publicKey])).toBe(true);
  });
});
