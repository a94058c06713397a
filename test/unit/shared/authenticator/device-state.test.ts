import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQrCodeUrl } from '#shared/authenticator/authenticator';
import { rotateServicePins, servicePinsKept } from '#shared/authenticator/service-pins';
import {
  type AuthenticatorState,
  AuthenticatorStateError,
  defaultConfiguration,
} from '#shared/authenticator/state';
import { readAuthenticatorState, writeAuthenticatorState } from '#shared/authenticator/state-file';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mfa-authenticator-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const state: AuthenticatorState = {
  version: 1,
  baseUrl: 'http://127.0.0.1:8080',
  deviceId: crypto.randomUUID(),
  directoryId: crypto.randomUUID(),
  privateKeyPem: '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n',
  configuration: defaultConfiguration,
  servicePins: { [crypto.randomUUID()]: ['1234'] },
};

describe('the state file', () => {
  it('round-trips and is readable by its owner only', async () => {
    const path = join(directory, 'state.json');
    await writeFile(path, '{}', { mode: 0o644 });
    await writeAuthenticatorState(path, state);
    expect(await readAuthenticatorState(path)).toEqual(state);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('says so when there is none, or it is something else', async () => {
    await expect(readAuthenticatorState(join(directory, 'missing.json'))).rejects.toThrow(
      /link a device first/,
    );
    const other = join(directory, 'other.json');
    await writeFile(other, JSON.stringify({ hello: 'world' }));
    await expect(readAuthenticatorState(other)).rejects.toBeInstanceOf(AuthenticatorStateError);
    expect(await readFile(other, 'utf8')).toContain('hello');
  });
});

describe('service pins', () => {
  it('append a fresh four-digit pin and keep the newest five', () => {
    let pins: string[] = [];
    for (let answer = 1; answer <= 7; answer++) {
      const next = rotateServicePins(pins);
      expect(next.at(-1)).toMatch(/^\d{4}$/);
      expect(next.slice(0, -1)).toEqual(pins.slice(-(servicePinsKept - 1)));
      pins = next;
    }
    expect(pins).toHaveLength(servicePinsKept);
  });
});

describe('qrcode URLs', () => {
  it('give the base URL and the code', () => {
    expect(parseQrCodeUrl('https://mfa.example.com/prod/public/v3/qrcodes/ABCD2345')).toEqual({
      baseUrl: 'https://mfa.example.com/prod',
      code: 'ABCD2345',
    });
  });

  it.each([
    'https://mfa.example.com/public/v3/qrcodes/abc',
    'ftp://x/public/v3/qrcodes/ABCD2345',
    'ABCD2345',
  ])('refuse %s', (url) => {
    expect(() => parseQrCodeUrl(url)).toThrow(/not a linking code URL/);
  });
});
