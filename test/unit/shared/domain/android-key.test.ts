import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  describeAndroidKey,
  inspectAndroidKey,
  InvalidAndroidKeyError,
  openAndroidKey,
  parseAndroidKey,
  sealAndroidKey,
} from '#shared/domain/android-key';
import { makeServiceAccount } from '#test/support/service-account';

const account = makeServiceAccount('acme-mfa-push');

function refusal(value: string): string {
  try {
    parseAndroidKey(value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAndroidKeyError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

const withField = (name: string, value: unknown) => JSON.stringify({ ...account.file, [name]: value });
const without = (name: string) => JSON.stringify({ ...account.file, [name]: undefined });

describe('android_key', () => {
  it('is a service-account key file: its account and key come out, and the description shows no secret', () => {
    const parsed = parseAndroidKey(account.json);
    expect(parsed).toEqual({
      projectId: 'acme-mfa-push',
      clientEmail: account.file.client_email,
      privateKeyId: account.file.private_key_id,
      privateKeyPem: account.file.private_key,
    });
    const description = describeAndroidKey(parsed);
    expect(description).toBe(
      `service-account:${account.file.client_email}#${(account.file.private_key_id ?? '').slice(0, 8)}`,
    );
    expect(description).not.toContain('PRIVATE');
  });

  it('takes the file with surrounding whitespace, a 4096-bit key, and a domain-scoped project', () => {
    expect(parseAndroidKey(`\n  ${account.json}\n`).projectId).toBe('acme-mfa-push');
    expect(parseAndroidKey(makeServiceAccount('big-key-project', 4096).json).projectId).toBe(
      'big-key-project',
    );
    expect(parseAndroidKey(withField('project_id', 'example.com:push-app')).projectId).toBe(
      'example.com:push-app',
    );
  });

  it('takes any other string as unusable, saying why without quoting it', () => {
    expect(inspectAndroidKey(account.json)).toMatchObject({
      usable: true,
      account: { projectId: 'acme-mfa-push' },
    });
    for (const other of [
      'Hello Android',
      'AAAAx1y2z3A:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx7g0QzJZbHhTvXE1ql_ACJXGmgDMC5j3vjYKZxOi',
      withField('type', 'authorized_user'),
    ]) {
      const inspection = inspectAndroidKey(other);
      expect(inspection.usable).toBe(false);
      const { reason } = inspection as { reason: string };
      expect(reason).not.toContain(other.slice(0, 12));
      expect(reason).not.toContain('authorized_user');
    }
  });

  it('seals a string that cannot push so that only the hash key opens it, and a purpose of its own', () => {
    const hashKey = Buffer.alloc(32, 7);
    const sealed = sealAndroidKey(hashKey, 'Hello Android');
    expect(sealed.sealed).not.toContain('Hello');
    expect(openAndroidKey(hashKey, sealed)).toBe('Hello Android');
    expect(() => openAndroidKey(Buffer.alloc(32, 8), sealed)).toThrow();
  });

  it('says a legacy server key is not a service-account file, that the legacy API is retired, and what to give', () => {
    for (const legacy of [
      'AAAAx1y2z3A:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx7g0QzJZbHhTvXE1ql_ACJXGmgDMC5j3vjYKZxOi',
      'AIzaSyDOCAbC123dEf456GhI789jKl012-MnO',
      '',
    ]) {
      const message = refusal(legacy);
      expect(message).toMatch(/legacy FCM API/);
      expect(message).toMatch(/2024/);
      expect(message).toMatch(/service-account JSON file/);
    }
  });

  it('says why JSON is not a service-account key file', () => {
    expect(refusal('{"type": "service_account",')).toBe('is not valid JSON');
    expect(refusal('[1]')).toMatch(/legacy/);
    expect(refusal('{}')).toMatch(/type is not "service_account"/);
    expect(refusal(withField('type', 'authorized_user'))).toMatch(/type is not "service_account"/);
    for (const name of ['project_id', 'client_email', 'private_key_id', 'private_key']) {
      expect(refusal(without(name))).toBe(`has no ${name}`);
      expect(refusal(withField(name, 42))).toBe(`has no ${name}`);
    }
  });

  it('says so of a project_id Google would not issue', () => {
    for (const bad of [
      'Acme-Push',
      'acme',
      '1acme-push',
      'acme-push-',
      'a'.repeat(31),
      'acme_push',
      '../etc',
    ]) {
      expect(refusal(withField('project_id', bad))).toBe('has a project_id Google would not issue');
    }
  });

  it('says so of a client_email that is not a Google service account', () => {
    for (const bad of [
      'someone@gmail.com',
      'push@acme.iam.gserviceaccount.com.evil.test',
      'no-at-sign',
      '@x.gserviceaccount.com',
    ]) {
      expect(refusal(withField('client_email', bad))).toBe(
        'has a client_email that is not a Google service account',
      );
    }
  });

  it('says so of a malformed private_key_id', () => {
    for (const bad of ['short', 'has spaces in it, so no', 'a'.repeat(129)]) {
      expect(refusal(withField('private_key_id', bad))).toBe('has a malformed private_key_id');
    }
  });

  it('says so of a private_key that is not an RSA private key of 2048 to 4096 bits', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const publicPem = account.publicKey.export({ type: 'spki', format: 'pem' });
    expect(refusal(withField('private_key', 'not a key'))).toBe(
      'has a private_key that is not a PEM private key',
    );
    expect(refusal(withField('private_key', publicPem))).toBe(
      'has a private_key that is not a PEM private key',
    );
    expect(
      refusal(withField('private_key', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')),
    ).toBe('has a private_key that cannot be read');
    expect(refusal(withField('private_key', ec))).toMatch(/not an RSA key/);
    expect(refusal(withField('private_key', small))).toBe(
      'has a 1024-bit RSA key; it must have 2048 to 4096 bits',
    );
  });

  it('says so of a key over 4096 bits', () => {
    const big = generateKeyPairSync('rsa', { modulusLength: 4608 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    expect(refusal(withField('private_key', big))).toBe(
      'has a 4608-bit RSA key; it must have 2048 to 4096 bits',
    );
  });
});
