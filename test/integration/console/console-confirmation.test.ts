import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, refusal, type SignedIn } from '#test/integration/console/console-client';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * The admin's passkey again before a change that needs it (docs/console.md#confirming-with-the-passkey), over real
 * HTTP against the local runtime: keys, unlinking and TOTP resets are refused once the passkey is older than 5
 * minutes, until the admin gives it again in this session; reads and other changes go on.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;

beforeAll(async () => {
  runtime = await startTestRuntime();
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
}, 60_000);
afterAll(() => runtime?.stop());

const publicKey = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });

/** An admin whose sign-in (and passkey) was 6 minutes ago, and whose session is still live. */
async function staleAdmin(): Promise<SignedIn> {
  const admin = await client.signedIn('admin');
  await client.store.ageSession(admin.cookie, { idleSeconds: 30, sinceSignInSeconds: 6 * 60 });
  return admin;
}

async function confirmation(admin: SignedIn, passkey = admin.passkey, session = admin): Promise<Answer> {
  const options = await client.call('POST', '/confirmation/options', { session });
  expect(options.status).toBe(200);
  const { challenge, rpId } = options.body as { challenge: string; rpId: string };
  return client.call('POST', '/confirmation', {
    session: admin,
    body: { assertion: passkey.assert({ challenge, rp_id: rpId }) },
  });
}

const directoryOf = async (admin: SignedIn) => {
  const created = await client.call('POST', '/directories', {
    session: admin,
    body: { name: `Confirmed ${randomUUID()}` },
  });
  expect(created.status).toBe(201);
  return created.body?.id as string;
};

describe('confirming with the passkey', () => {
  it('takes a key change within 5 minutes of the sign-in, with no confirmation', async () => {
    const admin = await client.signedIn('admin');
    const directoryId = await directoryOf(admin);
    const added = await client.call('POST', `/directories/${directoryId}/keys`, {
      session: admin,
      body: { public_key: publicKey() },
    });
    expect(added.status).toBe(201);
  });

  it('refuses a key change, an SDK key and a TOTP reset 6 minutes on with 403 CON-010, and reads go on', async () => {
    const admin = await client.signedIn('admin');
    const directoryId = await directoryOf(admin);
    await client.store.ageSession(admin.cookie, { idleSeconds: 30, sinceSignInSeconds: 6 * 60 });
    const tried = [
      await client.call('POST', `/directories/${directoryId}/keys`, {
        session: admin,
        body: { public_key: publicKey() },
      }),
      await client.call('POST', `/directories/${directoryId}/sdk-keys`, { session: admin }),
      await client.call('DELETE', `/directories/${directoryId}/users/someone/totp`, { session: admin }),
    ];
    for (const answer of tried) expect(refusal(answer)).toEqual({ status: 403, code: 'CON-010' });
    expect((await client.call('GET', `/directories/${directoryId}/keys`, { session: admin })).body).toEqual({
      keys: [],
    });
    // A change that does not need the passkey goes on.
    expect(
      (
        await client.call('PATCH', `/directories/${directoryId}`, {
          session: admin,
          body: { active: false },
        })
      ).status,
    ).toBe(200);
  });

  it('takes the key change once the admin gives their passkey again, and records the confirmation', async () => {
    const since = new Date(Date.now() - 1000);
    const admin = await staleAdmin();
    const directoryId = await directoryOf(admin);
    expect((await confirmation(admin)).status).toBe(204);
    const added = await client.call('POST', `/directories/${directoryId}/keys`, {
      session: admin,
      body: { public_key: publicKey() },
    });
    expect(added.status).toBe(201);
    const records = await client.store.consoleRecords(runtime.organizationId, since);
    expect(
      records.some(
        (record) =>
          record.operation === 'POST /console/api/confirmation' &&
          record.outcome === 'success' &&
          record.actor_id === `console:${admin.adminId}`,
      ),
    ).toBe(true);
  });

  it('refuses another admin’s passkey, and a challenge given to another session', async () => {
    const admin = await staleAdmin();
    const other = await client.signedIn('admin');
    expect(refusal(await confirmation(admin, other.passkey))).toEqual({ status: 403, code: 'CON-006' });
    // The other session's challenge, answered by the right passkey, does not serve this session.
    expect(refusal(await confirmation(admin, admin.passkey, other))).toEqual({
      status: 403,
      code: 'CON-006',
    });
    const directoryId = await directoryOf(other);
    expect(
      refusal(
        await client.call('POST', `/directories/${directoryId}/keys`, {
          session: admin,
          body: { public_key: publicKey() },
        }),
      ),
    ).toEqual({ status: 403, code: 'CON-010' });
  });

  it('uses a confirmation challenge once', async () => {
    const admin = await staleAdmin();
    const options = await client.call('POST', '/confirmation/options', { session: admin });
    const { challenge, rpId } = options.body as { challenge: string; rpId: string };
    const first = admin.passkey.assert({ challenge, rp_id: rpId });
    expect(
      (await client.call('POST', '/confirmation', { session: admin, body: { assertion: first } })).status,
    ).toBe(204);
    const again = admin.passkey.assert({ challenge, rp_id: rpId });
    expect(
      refusal(await client.call('POST', '/confirmation', { session: admin, body: { assertion: again } })),
    ).toEqual({ status: 403, code: 'CON-006' });
  });

  it('needs the session’s CSRF token', async () => {
    const admin = await staleAdmin();
    expect(
      refusal(await client.call('POST', '/confirmation/options', { session: admin, withoutCsrf: true })),
    ).toEqual({ status: 403, code: 'CON-002' });
  });
});
