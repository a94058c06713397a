import {
  constants,
  createPublicKey,
  generateKeyPairSync,
  privateDecrypt,
  publicEncrypt,
  sign,
  type KeyObject,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildV1Credentials,
  formatLaunchKeyTime,
  LegacyCredentialError,
  openV1SecretKey,
  parseLaunchKeyTime,
  parseStringDictionary,
  verifyV1Signature,
} from '#shared/protocol/legacy-credentials';
import { rsaKeyPair } from '#test/support/keys';
import { pythonKey, pythonVector } from '#test/unit/shared/protocol/legacy-vectors';

const api = rsaKeyPair();
const service = rsaKeyPair();
const other = rsaKeyPair();
const api4096 = rsaKeyPair(4096);
const service4096 = rsaKeyPair(4096);

const now = new Date('2024-05-06T07:08:09.654Z');
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');

/** A `secret_key` holding exactly this dictionary text, encrypted as every v1 client did (OAEP SHA-1). */
function sealBlob(blob: string, apiPublicKey: KeyObject = api.publicKey): string {
  return publicEncrypt(
    { key: apiPublicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    Buffer.from(blob, 'utf8'),
  ).toString('base64');
}

function failure(run: () => unknown): LegacyCredentialError {
  try {
    run();
  } catch (error) {
    if (error instanceof LegacyCredentialError) return error;
    throw error;
  }
  throw new Error('expected a LegacyCredentialError');
}

function flipByte(base64: string, index: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

describe('buildV1Credentials and openV1SecretKey', () => {
  it.each([
    ['2048-bit', api, service],
    ['4096-bit', api4096, service4096],
  ])('round-trip with %s keys, stamping the time to the second', (_, apiPair, servicePair) => {
    const credentials = buildV1Credentials({
      appKey: '1234567890',
      secret: 'lyyk9ai0dq4bxj6w0xn9i3mcywp3lg9t',
      apiPublicKey: apiPair.publicKey,
      servicePrivateKey: servicePair.privateKey,
      now,
    });
    expect(credentials.app_key).toBe('1234567890');
    expect(credentials.secret_key).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(credentials.secret_key, 'base64')).toHaveLength(
      (apiPair.publicKey.asymmetricKeyDetails?.modulusLength ?? 0) / 8,
    );
    expect(openV1SecretKey(credentials.secret_key, [apiPair.privateKey])).toEqual({
      secret: 'lyyk9ai0dq4bxj6w0xn9i3mcywp3lg9t',
      stamped: new Date('2024-05-06T07:08:09.000Z'),
    });
    expect(verifyV1Signature(credentials.secret_key, credentials.signature, [servicePair.publicKey])).toBe(
      true,
    );
  });

  it('writes the dictionary as JSON with the platform date, as the Ruby, Java and PHP clients did', () => {
    const { secret_key } = buildV1Credentials({
      appKey: '1',
      secret: 'abc',
      apiPublicKey: api.publicKey,
      servicePrivateKey: service.privateKey,
      now,
    });
    const plaintext = privateDecrypt(
      { key: api.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      Buffer.from(secret_key, 'base64'),
    ).toString();
    expect(plaintext).toBe('{"secret":"abc","stamped":"2024-05-06 07:08:09"}');
  });

  it('writes a Python literal in wrapped Base64 in the python style, as launchkey.py did, and reads it back', () => {
    const credentials = buildV1Credentials({
      appKey: '1',
      secret: "it's \\ tricky",
      apiPublicKey: api.publicKey,
      servicePrivateKey: service.privateKey,
      now,
      style: 'python',
    });
    expect(credentials.secret_key.split('\n').map((line) => line.length)).toEqual([76, 76, 76, 76, 40, 0]);
    const plaintext = privateDecrypt(
      { key: api.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      Buffer.from(credentials.secret_key, 'base64'),
    ).toString();
    expect(plaintext).toBe(`{'secret': "it's \\\\ tricky", 'stamped': '2024-05-06 07:08:09'}`);
    expect(openV1SecretKey(credentials.secret_key, [api.privateKey]).secret).toBe("it's \\ tricky");
    expect(verifyV1Signature(credentials.secret_key, credentials.signature, [service.publicKey])).toBe(true);
  });

  it('refuses a secret too large for one RSA block of the API key', () => {
    const input = {
      appKey: '1',
      secret: 'x'.repeat(200),
      apiPublicKey: api.publicKey,
      servicePrivateKey: service.privateKey,
      now,
    };
    expect(failure(() => buildV1Credentials(input)).reason).toBe('too_large');
    expect(() => buildV1Credentials({ ...input, apiPublicKey: api4096.publicKey })).not.toThrow();
  });
});

describe('openV1SecretKey with what the old clients sent', () => {
  it('opens the secret_key launchkey.py produced under Python, with its wrapped Base64 and fractional stamp', () => {
    expect(openV1SecretKey(pythonVector.secretKey, [other.privateKey, pythonKey])).toEqual({
      secret: "s3cr3t/key+with'quote",
      stamped: new Date('2013-11-10T03:57:18.250Z'),
    });
  });

  it('reads a + that a careless form encoding turned into a space', () => {
    expect(pythonVector.secretKey).toContain('+');
    const spaced = pythonVector.secretKey.replace(/\+/g, ' ');
    expect(openV1SecretKey(spaced, [pythonKey]).secret).toBe("s3cr3t/key+with'quote");
  });

  it.each([
    [
      'launchkey.py under Python 2: any key order, u-strings',
      `{'stamped': '2013-11-10 03:57:18', 'secret': u'abc123'}`,
      'abc123',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'launchkey.py 1.2 with its cipher key',
      `{'cipher': '0123456789abcdef0123456789abcdef', 'secret': 'abc', 'stamped': '2014-06-16 12:00:00.000001'}`,
      'abc',
      '2014-06-16T12:00:00.000Z',
    ],
    [
      'a Python 2 byte string with UTF-8 escapes',
      `{'secret': 'caf\\xc3\\xa9', 'stamped': '2013-11-10 03:57:18'}`,
      'café',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'a Python 2 unicode string with code point escapes',
      `{'secret': u'caf\\xe9 \\u20ac \\U0001f600', 'stamped': u'2013-11-10 03:57:18'}`,
      'café € 😀',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'a Python 3 bytes repr',
      `{'secret': b'abc', 'stamped': '2013-11-10 03:57:18'}`,
      'abc',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'the 2013 PHP library, with mixed quotes',
      `{"secret": 'abc', "stamped": '2013-11-10 03:57:18'}`,
      'abc',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'Ruby JSON.dump and Jackson',
      `{"secret":"abc","stamped":"2013-11-10 03:57:18"}`,
      'abc',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'PHP json_encode, which escapes slashes',
      `{"secret":"a\\/b","stamped":"2015-01-01 00:00:00"}`,
      'a/b',
      '2015-01-01T00:00:00.000Z',
    ],
    [
      'LaunchKey.NET, with spaces around the colons',
      `{"secret" : "abc", "stamped" : "2013-11-10 03:57:18"}`,
      'abc',
      '2013-11-10T03:57:18.000Z',
    ],
    [
      'JSON with a surrogate pair escape',
      `{"secret":"\\ud83d\\ude00","stamped":"2013-11-10T03:57:18Z"}`,
      '😀',
      '2013-11-10T03:57:18.000Z',
    ],
  ])('opens %s', (_, blob, secret, stamped) => {
    expect(openV1SecretKey(sealBlob(blob), [api.privateKey])).toEqual({ secret, stamped: new Date(stamped) });
  });

  it.each([
    ['a bare string', `'abc'`],
    ['a list', `['secret', 'stamped']`],
    ['no stamped', `{'secret': 'abc'}`],
    ['no secret', `{'stamped': '2013-11-10 03:57:18'}`],
    ['a number as secret', `{"secret": 1, "stamped": "2013-11-10 03:57:18"}`],
    ['a repeated key', `{'secret': 'a', 'secret': 'b', 'stamped': '2013-11-10 03:57:18'}`],
    ['trailing text', `{'secret': 'a', 'stamped': '2013-11-10 03:57:18'} x`],
    ['a trailing comma', `{'secret': 'a', 'stamped': '2013-11-10 03:57:18',}`],
    ['an unknown escape', `{'secret': 'a\\q', 'stamped': '2013-11-10 03:57:18'}`],
    ['a short hex escape', `{'secret': 'a\\x4', 'stamped': '2013-11-10 03:57:18'}`],
    ['an unterminated string', `{'secret': 'a, 'stamped': '2013-11-10 03:57:18'}`],
    ['a raw line break in a string', `{'secret': 'a\nb', 'stamped': '2013-11-10 03:57:18'}`],
    ['escaped bytes that are not UTF-8', `{'secret': '\\xff', 'stamped': '2013-11-10 03:57:18'}`],
  ])('refuses %s as format', (_, blob) => {
    const error = failure(() => openV1SecretKey(sealBlob(blob), [api.privateKey]));
    expect(error.reason).toBe('format');
  });

  it('refuses a plaintext that is not UTF-8 as format', () => {
    const secretKey = publicEncrypt(
      { key: api.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      Buffer.from([0x7b, 0xff, 0x7d]),
    ).toString('base64');
    expect(failure(() => openV1SecretKey(secretKey, [api.privateKey])).reason).toBe('format');
  });

  it.each([
    ['an impossible day', '2013-02-30 00:00:00'],
    ['an hour past 23', '2013-11-10 24:00:00'],
    ['a date without time', '2013-11-10'],
    ['another order', '10/11/2013 03:57:18'],
    ['a zone offset', '2013-11-10 03:57:18+02:00'],
    ['an epoch number', '1384055838'],
  ])('refuses %s as timestamp', (_, stamped) => {
    const blob = JSON.stringify({ secret: 'abc', stamped });
    expect(failure(() => openV1SecretKey(sealBlob(blob), [api.privateKey])).reason).toBe('timestamp');
  });
});

describe('openV1SecretKey refusals', () => {
  const credentials = buildV1Credentials({
    appKey: '1',
    secret: 'abc',
    apiPublicKey: api.publicKey,
    servicePrivateKey: service.privateKey,
    now,
  });

  it('refuses a secret_key for another API key, and tries every key it is given', () => {
    expect(failure(() => openV1SecretKey(credentials.secret_key, [other.privateKey])).reason).toBe(
      'decryption',
    );
    expect(failure(() => openV1SecretKey(credentials.secret_key, [])).reason).toBe('decryption');
    expect(openV1SecretKey(credentials.secret_key, [other.privateKey, api.privateKey]).secret).toBe('abc');
  });

  it('passes over a key that is not RSA', () => {
    expect(openV1SecretKey(credentials.secret_key, [ec.privateKey, api.privateKey]).secret).toBe('abc');
    expect(failure(() => openV1SecretKey(credentials.secret_key, [ec.privateKey])).reason).toBe('decryption');
  });

  it('refuses a tampered secret_key', () => {
    for (const index of [0, 100, 255]) {
      const tampered = flipByte(credentials.secret_key, index);
      expect(failure(() => openV1SecretKey(tampered, [api.privateKey])).reason).toBe('decryption');
    }
  });

  it('refuses a secret_key one byte short of a block', () => {
    const short = Buffer.from(credentials.secret_key, 'base64').subarray(1).toString('base64');
    expect(failure(() => openV1SecretKey(short, [api.privateKey])).reason).toBe('decryption');
  });

  it('refuses a secret encrypted with PKCS#1 v1.5, which no client used', () => {
    const secretKey = publicEncrypt(
      { key: api.publicKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from('{"secret":"abc","stamped":"2013-11-10 03:57:18"}'),
    ).toString('base64');
    expect(failure(() => openV1SecretKey(secretKey, [api.privateKey])).reason).toBe('decryption');
  });

  it('refuses a secret encrypted with OAEP SHA-256, which no client used', () => {
    const secretKey = publicEncrypt(
      { key: api.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from('{"secret":"abc","stamped":"2013-11-10 03:57:18"}'),
    ).toString('base64');
    expect(failure(() => openV1SecretKey(secretKey, [api.privateKey])).reason).toBe('decryption');
  });

  it.each([
    ['empty', ''],
    ['not Base64', 'not base64!'],
    ['of a wrong length', credentials.secret_key.slice(1)],
    ['in the URL-safe alphabet', credentials.secret_key.replace(/[+/]/g, '-') + '-_'],
    ['padding in the middle', 'ab==cd=='],
  ])('refuses a secret_key %s as base64', (_, secretKey) => {
    expect(failure(() => openV1SecretKey(secretKey, [api.privateKey])).reason).toBe('base64');
  });

  it('refuses a non-string secret_key as base64', () => {
    expect(failure(() => openV1SecretKey(42 as unknown as string, [api.privateKey])).reason).toBe('base64');
  });
});

describe('verifyV1Signature', () => {
  const credentials = buildV1Credentials({
    appKey: '1',
    secret: 'abc',
    apiPublicKey: api.publicKey,
    servicePrivateKey: service.privateKey,
    now,
  });
  const raw = Buffer.from(credentials.secret_key, 'base64');

  it('verifies the signature launchkey.py made, over the raw bytes of its wrapped Base64', () => {
    expect(
      verifyV1Signature(pythonVector.secretKey, pythonVector.signature, [createPublicKey(pythonKey)]),
    ).toBe(true);
    expect(verifyV1Signature(pythonVector.secretKey, pythonVector.signature, [service.publicKey])).toBe(
      false,
    );
  });

  it('accepts the signature of any of the Service keys, and of none when there are none', () => {
    expect(
      verifyV1Signature(credentials.secret_key, credentials.signature, [other.publicKey, service.publicKey]),
    ).toBe(true);
    expect(verifyV1Signature(credentials.secret_key, credentials.signature, [])).toBe(false);
    expect(
      verifyV1Signature(credentials.secret_key, credentials.signature, [ec.publicKey, service.publicKey]),
    ).toBe(true);
    expect(
      verifyV1Signature(credentials.secret_key, credentials.signature, [ec.publicKey, ed.publicKey]),
    ).toBe(false);
  });

  it('refuses a signature by another key', () => {
    const forged = sign('sha256', raw, { key: other.privateKey, padding: constants.RSA_PKCS1_PADDING });
    expect(verifyV1Signature(credentials.secret_key, forged.toString('base64'), [service.publicKey])).toBe(
      false,
    );
  });

  it('refuses a signature over other bytes: another secret_key, or the Base64 text itself', () => {
    const another = buildV1Credentials({
      appKey: '1',
      secret: 'abc',
      apiPublicKey: api.publicKey,
      servicePrivateKey: service.privateKey,
      now,
    });
    expect(verifyV1Signature(credentials.secret_key, another.signature, [service.publicKey])).toBe(false);
    const overText = sign('sha256', Buffer.from(credentials.secret_key), {
      key: service.privateKey,
      padding: constants.RSA_PKCS1_PADDING,
    });
    expect(verifyV1Signature(credentials.secret_key, overText.toString('base64'), [service.publicKey])).toBe(
      false,
    );
  });

  it('refuses a tampered secret_key under its original signature', () => {
    const tampered = flipByte(credentials.secret_key, 17);
    expect(verifyV1Signature(tampered, credentials.signature, [service.publicKey])).toBe(false);
  });

  it('refuses SHA-1 and PSS signatures, which no client made', () => {
    const sha1 = sign('sha1', raw, { key: service.privateKey, padding: constants.RSA_PKCS1_PADDING });
    const pss = sign('sha256', raw, { key: service.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING });
    expect(verifyV1Signature(credentials.secret_key, sha1.toString('base64'), [service.publicKey])).toBe(
      false,
    );
    expect(verifyV1Signature(credentials.secret_key, pss.toString('base64'), [service.publicKey])).toBe(
      false,
    );
  });

  it('refuses malformed Base64 in either value instead of throwing', () => {
    expect(verifyV1Signature('not base64!', credentials.signature, [service.publicKey])).toBe(false);
    expect(verifyV1Signature(credentials.secret_key, 'not base64!', [service.publicKey])).toBe(false);
    expect(verifyV1Signature(credentials.secret_key, '', [service.publicKey])).toBe(false);
  });
});

describe('platform dates', () => {
  it('formats to the second in UTC', () => {
    expect(formatLaunchKeyTime(new Date('2015-01-01T00:00:00.999Z'))).toBe('2015-01-01 00:00:00');
  });

  it.each([
    ['2015-01-01 00:00:00', '2015-01-01T00:00:00.000Z'],
    ['2013-11-10 03:57:18.250000', '2013-11-10T03:57:18.250Z'],
    ['2013-11-10 03:57:18.5', '2013-11-10T03:57:18.500Z'],
    ['2013-11-10T03:57:18Z', '2013-11-10T03:57:18.000Z'],
    ['2016-02-29 23:59:59', '2016-02-29T23:59:59.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseLaunchKeyTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2015-02-29 00:00:00',
    '2015-13-01 00:00:00',
    '2015-01-01 00:60:00',
    '2015-01-01 00:00:00.1234567',
    '',
  ])('refuses %j', (text) => {
    expect(parseLaunchKeyTime(text)).toBeUndefined();
  });
});

describe('parseStringDictionary', () => {
  it('reads an empty dictionary and keeps every key', () => {
    expect(parseStringDictionary(' {} ')).toEqual(new Map());
    expect(parseStringDictionary(`{'a': 'b', "c": u"d"}`)).toEqual(
      new Map([
        ['a', 'b'],
        ['c', 'd'],
      ]),
    );
  });

  it('reads Python repr escapes of quotes, backslashes and control characters', () => {
    expect(parseStringDictionary(`{'k': 'it\\'s \\\\ \\t\\n\\r\\x07'}`)?.get('k')).toBe("it's \\ \t\n\r\x07");
  });
});
