import { existsSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '#shared/client/api-client';
import {
  admin,
  freePort,
  runCli,
  type ServiceProcess,
  startServiceProcess,
} from '#test/support/service-process';

let dataDir: string;
let running: ServiceProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-start-'));
});
afterAll(async () => {
  await running?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function clientFor(service: ServiceProcess): Promise<ApiClient> {
  return new ApiClient({
    baseUrl: service.baseUrl,
    issuer: `org:${service.organizationId}`,
    privateKeyPem: await readFile(service.privateKeyPath, 'utf8'),
  });
}

/** Every path under the data directory that its group or other users may read, write or enter, with its mode. */
async function openToOthers(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const path of [
    directory,
    ...(await readdir(directory, { recursive: true })).map((entry) => join(directory, entry)),
  ]) {
    const { mode } = await lstat(path);
    if ((mode & 0o077) !== 0) found.push(`${path} ${(mode & 0o777).toString(8)}`);
  }
  return found;
}

async function currentApiKid(baseUrl: string): Promise<string> {
  return (await fetch(`${baseUrl}/public/v3/public-key`)).headers.get('x-iov-key-id') as string;
}

describe('npm start', () => {
  let firstOrganization: string;
  let firstApiKid: string;

  it('on first start creates everything and prints the base URL, the organization id and its key path', async () => {
    running = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
    expect(running.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.organizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(running.banner).toContain('(created now)');
    expect(running.privateKeyPath).toBe(join(dataDir, 'demo-organization.key.pem'));
    firstOrganization = running.organizationId;
    firstApiKid = await currentApiKid(running.baseUrl);
    const answer = await (await clientFor(running)).call('GET', '/organization/v3/directories');
    expect(answer).toMatchObject({ status: 200, body: [] });
    // The store takes any credentials and runtime.json names its port: nothing in here is for other users.
    expect(((await lstat(dataDir)).mode & 0o777).toString(8)).toBe('700');
    expect(await readdir(join(dataDir, 'dynamodb'))).not.toEqual([]);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(running.banner).not.toContain('Tightened');
  });

  it("prints a one-time invite to the console as the demo organization's owner, at localhost", async () => {
    const url = /Console invite\s+(\S+)/.exec((running as ServiceProcess).banner)?.[1] ?? '';
    const port = new URL((running as ServiceProcess).baseUrl).port;
    expect(url).toMatch(new RegExp(`^http://localhost:${port}/console/#invite=[A-Za-z0-9_-]{43}$`));
    // The invite is one the console takes: its enrolment starts.
    const options = await fetch(new URL('/console/api/enrolment/options', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(url).origin },
      body: JSON.stringify({ invite: new URL(url).hash.slice('#invite='.length) }),
    });
    expect(options.status).toBe(200);
    expect(((await options.json()) as { rp: { id: string } }).rp.id).toBe('localhost');
  });

  it('lets the admin CLI work beside it on the same data', async () => {
    const created = (await admin([
      'org',
      'create',
      '--name',
      'Acme',
      '--data-dir',
      dataDir,
      '--out',
      join(dataDir, 'acme.pem'),
    ])) as {
      organization_id: string;
      private_key: string;
    };
    const listed = (await admin(['org', 'list', '--data-dir', dataDir])) as { id: string; name: string }[];
    expect(listed.map((organization) => organization.name).sort()).toEqual(['Acme', 'Demo Organization']);
    const acme = new ApiClient({
      baseUrl: (running as ServiceProcess).baseUrl,
      issuer: `org:${created.organization_id}`,
      privateKeyPem: await readFile(created.private_key, 'utf8'),
    });
    expect(await acme.call('GET', '/organization/v3/directories')).toMatchObject({ status: 200, body: [] });
  });

  it('rotates the API key while serving: old keys stay valid, new bodies decrypt, new answers are signed by the new key', async () => {
    const service = running as ServiceProcess;
    const before = await clientFor(service);
    await before.currentApiKey();

    const rotated = (await admin(['api-key', 'rotate', '--data-dir', dataDir])) as { kid: string };
    expect(rotated.kid).not.toBe(firstApiKid);
    expect(await currentApiKid(service.baseUrl)).toBe(rotated.kid);
    expect((await fetch(`${service.baseUrl}/public/v3/public-key/${firstApiKid}`)).status).toBe(200);

    // A client that still caches the old key encrypts to it, and is still understood.
    expect(
      await before.call('POST', '/organization/v3/directories/list', { body: { directory_ids: [] } }),
    ).toMatchObject({ status: 200 });
    // A fresh client encrypts to the new key; the service picks it up from the ring and signs with it.
    const after = await clientFor(service);
    const answer = await after.call('POST', '/organization/v3/directories/list', {
      body: { directory_ids: [] },
    });
    expect(decodeProtectedHeader(answer.headers.get('x-iov-jwt') as string).kid).toBe(rotated.kid);

    const keys = (await admin(['api-key', 'list', '--data-dir', dataDir])) as {
      kid: string;
      current: boolean;
    }[];
    expect(keys.map((key) => [key.kid, key.current]).sort()).toEqual(
      [
        [firstApiKid, false],
        [rotated.kid, true],
      ].sort(),
    );
    firstApiKid = rotated.kid;
  });

  it('revokes a rotated-out API key: unpublished, and bodies encrypted to it are refused', async () => {
    const service = running as ServiceProcess;
    const stale = await clientFor(service);
    await stale.currentApiKey();
    const oldKid = firstApiKid;
    const rotated = (await admin(['api-key', 'rotate', '--data-dir', dataDir])) as { kid: string };
    // As after the clients' cache: the running functions have picked up the rotation (a body to the new key makes
    // them re-read the ring, once 5 seconds have passed since the last re-read).
    await sleep(5_500);
    expect(
      await (
        await clientFor(service)
      ).call('POST', '/organization/v3/directories/list', {
        body: { directory_ids: [] },
      }),
    ).toMatchObject({ status: 200 });

    const refusedCurrent = await runCli('admin', [
      'api-key',
      'revoke',
      '--kid',
      rotated.kid,
      '--data-dir',
      dataDir,
    ]);
    expect(refusedCurrent.code).toBe(1);
    expect(refusedCurrent.stderr.trim()).toBe(
      `API key ${rotated.kid} is the current key and cannot be revoked; rotate to another key first`,
    );

    expect(await admin(['api-key', 'revoke', '--kid', oldKid, '--data-dir', dataDir])).toEqual({
      kid: oldKid,
      revoked: true,
    });
    const keys = (await admin(['api-key', 'list', '--data-dir', dataDir])) as { kid: string }[];
    expect(keys.map((key) => key.kid)).not.toContain(oldKid);

    // Running functions keep a key that is not current, and its public half, for 5 seconds at most.
    await sleep(5_500);
    expect((await fetch(`${service.baseUrl}/public/v3/public-key/${oldKid}`)).status).toBe(404);
    expect(await currentApiKid(service.baseUrl)).toBe(rotated.kid);
    await expect(
      stale.call('POST', '/organization/v3/directories/list', { body: { directory_ids: [] } }),
    ).rejects.toMatchObject({
      status: 400,
      errorCode: 'ARG-001',
      errorDetail: expect.stringContaining('encrypted to an API key this service does not hold') as string,
    });
    firstApiKid = rotated.kid;
  }, 60_000);

  it('stops cleanly on Ctrl-C', async () => {
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(true);
    const ended = await (running as ServiceProcess).stop('SIGINT');
    running = undefined;
    expect(ended).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
  });

  it('reuses the data directory on a second start, configured by PORT and DATA_DIR, tightening what was loose', async () => {
    const loosened = [dataDir, join(dataDir, 'dynamodb'), join(dataDir, 'api-keys.json')];
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, 'dynamodb'), 0o777);
    await chmod(join(dataDir, 'api-keys.json'), 0o644);
    const port = await freePort();
    running = await startServiceProcess([], { PORT: String(port), DATA_DIR: dataDir });
    expect(running.banner).toContain(`Tightened ${loosened.length} path(s) in ${dataDir}`);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(running.baseUrl).toBe(`http://127.0.0.1:${port}`);
    expect(running.organizationId).toBe(firstOrganization);
    expect(running.banner).not.toContain('(created now)');
    expect(await currentApiKid(running.baseUrl)).toBe(firstApiKid);
    const listed = (await admin(['org', 'list', '--data-dir', dataDir])) as { name: string }[];
    expect(listed).toHaveLength(2);
    expect(await (await clientFor(running)).call('GET', '/organization/v3/directories')).toMatchObject({
      status: 200,
    });
  });

  it('refuses a second runtime on the same data directory with a clear message', async () => {
    const second = startServiceProcess(['--port', '0', '--data-dir', dataDir]);
    await expect(second).rejects.toThrow(
      /Another local runtime \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is using/,
    );
  });
});
