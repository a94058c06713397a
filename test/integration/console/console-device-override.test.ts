import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { type Answer, refusal, type SignedIn } from '#test/integration/console/console-client';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * Helpdesk's override of the device confirmation (docs/console.md#users), over real HTTP against the local runtime:
 * for a user who lost the phone that would confirm, a device waiting for confirmation is linked, and a device cooling
 * off may answer at once; the user's audit trail names the console admin; the role, the organization and the
 * admin's passkey are checked as for every change of devices.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let helpdesk: SignedIn;
let auditor: SignedIn;

const missingId = '00000000-0000-4000-8000-000000000000';
let counter = 0;
const unique = (prefix: string) => `${prefix} ${Date.now()} ${(counter += 1)}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
  [helpdesk, auditor] = await Promise.all([client.signedIn('helpdesk'), client.signedIn('auditor')]);
}, 60_000);
afterAll(() => runtime?.stop());

/** A user of a new directory of the organization, with a phone linked from a link helpdesk started. */
async function userWithPhone(identifier: string) {
  const directoryId = await client.store.directory(runtime.organizationId, unique('Directory'));
  const path = `/directories/${directoryId}/users/${identifier}`;
  const phone = await linkFromConsole(path, 'Phone');
  return { directoryId, path, phone };
}

/** A link helpdesk starts in the console, which a device then links with: the user's first, or one that waits. */
async function linkFromConsole(path: string, name: string): Promise<Authenticator> {
  const started = await client.call('POST', `${path}/links`, { session: helpdesk, body: {} });
  expect(started.status).toBe(201);
  return new Authenticator(
    await linkAuthenticator({ baseUrl: runtime.baseUrl, code: started.body?.code as string, name }),
  );
}

const confirm = (path: string, device: Authenticator | string, session: SignedIn = helpdesk) =>
  client.call(
    'POST',
    `${path}/devices/${typeof device === 'string' ? device : device.state.deviceId}/confirm`,
    { session },
  );

const deviceView = async (path: string, device: Authenticator) =>
  (
    (await client.call('GET', path, { session: helpdesk })).body?.devices as {
      id: string;
      status_name: string;
      answers_from: string | null;
    }[]
  ).find((each) => each.id === device.state.deviceId);

/** The device's status as the signed API lists it to the application. */
async function signedStatus(directoryId: string, identifier: string, device: Authenticator) {
  const listed = await runtime
    .client()
    .call<{ id: string; status: number }[]>('POST', '/directory/v3/devices/list', {
      subject: `dir:${directoryId}`,
      body: { identifier },
    });
  return listed.body?.find((each) => each.id === device.state.deviceId)?.status;
}

describe('helpdesk approving a device for a user who lost their phone', () => {
  it('links a device waiting for confirmation, and the user’s audit trail names the console admin', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { directoryId, path } = await userWithPhone('ada');
    const replacement = await linkFromConsole(path, 'New phone');
    expect(await replacement.linkState()).toMatchObject({ status: 'awaiting-confirmation' });
    expect((await deviceView(path, replacement))?.status_name).toBe('link-pending');

    const confirmed = await confirm(path, replacement);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ device_id: replacement.state.deviceId, outcome: 'confirmed' });
    expect((await deviceView(path, replacement))?.status_name).toBe('linked');
    expect(await signedStatus(directoryId, 'ada', replacement)).toBe(1);
    // Nothing waits or cools off any more: a clear refusal, not a second approval.
    expect(refusal(await confirm(path, replacement))).toEqual({ status: 404, code: 'HTTP-404' });

    const until = new Date(Date.now() + 1000).toISOString();
    const query = new URLSearchParams({
      since,
      until,
      user: 'ada',
      operation: 'POST /console/api/directories/{id}/users/{identifier}/devices/{deviceId}/confirm',
    });
    const trail = await client.call('GET', `/audit/records?${query.toString()}`, { session: auditor });
    expect(trail.status).toBe(200);
    const records = trail.body?.records as Record<string, unknown>[];
    expect(
      records.map((record) => [record.outcome, record.target_id ?? null, record.error_code ?? null]),
    ).toEqual([['success', 'confirmed', null]]);
    expect(records[0]).toMatchObject({
      actor_type: 'console',
      actor_id: `console:${helpdesk.adminId}`,
      admin_role: 'helpdesk',
      directory_id: directoryId,
      device_id: replacement.state.deviceId,
    });
    expect(records[0]?.session_id).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('lets a device cooling off after an unlink answer at once', async () => {
    const { directoryId, path, phone } = await userWithPhone('grace');
    expect(
      (await client.call('DELETE', `${path}/devices/${phone.state.deviceId}`, { session: helpdesk })).status,
    ).toBe(204);
    const relinked = await linkFromConsole(path, 'New phone');
    expect((await deviceView(path, relinked))?.answers_from).not.toBeNull();

    const ended = await confirm(path, relinked);
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ device_id: relinked.state.deviceId, outcome: 'cooling-off-ended' });
    expect(await deviceView(path, relinked)).toMatchObject({ status_name: 'linked', answers_from: null });
    expect(await signedStatus(directoryId, 'grace', relinked)).toBe(1);
  });

  it('is refused to an auditor, without the passkey again, and for another organization’s directory', async () => {
    const { path } = await userWithPhone('linus');
    const replacement = await linkFromConsole(path, 'New phone');
    expect(refusal(await confirm(path, replacement, auditor))).toEqual({ status: 403, code: 'CON-003' });

    const stale = await client.signedIn('helpdesk');
    await client.store.ageSession(stale.cookie, { idleSeconds: 30, sinceSignInSeconds: 6 * 60 });
    expect(refusal(await confirm(path, replacement, stale))).toEqual({ status: 403, code: 'CON-010' });
    expect((await deviceView(path, replacement))?.status_name).toBe('link-pending');

    // Another organization's directory and user, with a device waiting there, reads exactly as a missing directory.
    const organizationId = (await client.store.organization(unique('Foreign'))).organization.id;
    const theirDirectory = await client.store.directory(organizationId, 'Theirs');
    const { ensureUser } = await import('#shared/store/users');
    await ensureUser(
      organizationId,
      { directoryId: theirDirectory, identifier: 'linus' },
      crypto.randomUUID(),
      new Date(),
    );
    const theirs = await confirm(`/directories/${theirDirectory}/users/linus`, replacement);
    const none = await confirm(`/directories/${missingId}/users/linus`, replacement);
    const detail = (answer: Answer, id: string) => String(answer.body?.error_detail).replaceAll(id, '<id>');
    expect(refusal(theirs)).toEqual({ status: 404, code: 'CON-004' });
    expect(detail(theirs, theirDirectory)).toBe(detail(none, missingId));
    expect((await deviceView(path, replacement))?.status_name).toBe('link-pending');
  });
});
