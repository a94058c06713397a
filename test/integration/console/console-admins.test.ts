import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import type { Answer, SignedIn } from '#test/integration/console/console-client';

/**
 * Admin management in the console (docs/console.md#admin-management) over real HTTP against the local runtime: the
 * owners' list of admins and invites, invites by role, role changes and removals, each ending the changed admin's
 * sessions (a removal also unlinking their authenticator, cancelling their approval, revoking their invites, and
 * finished by a retry when it stopped halfway); the last owner kept (CON-009), other organizations' admins answered as missing ones (CON-004), the other
 * roles refused (CON-003), and each change an audit record naming the acting admin.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let refusal: (answer: Answer) => { status: number; code: unknown };
let organizationId: string;
let owner: SignedIn;

const missingId = '00000000-0000-4000-8000-000000000000';
let counter = 0;
const unique = (prefix: string) => `${prefix} ${Date.now()} ${(counter += 1)}`;

interface AdminRow {
  id: string;
  name: string;
  role: string;
  enrolled_at: string;
  last_sign_in_at: string | null;
  authenticator_linked: boolean;
}
interface InviteRow {
  id: string;
  role: string;
  expires_at: string;
  invited_by: string;
}

const newOrganization = async () => (await client.store.organization(unique('Admins'))).organization.id;

async function listed(session: SignedIn, query = '') {
  const answer = await client.call('GET', `/admins${query}`, { session });
  expect(answer.status).toBe(200);
  return answer.body as unknown as { organization_id: string; admins: AdminRow[]; invites: InviteRow[] };
}

/** Whether a session still works: who am I answers 200, or 401 CON-001 once it ended. */
const sessionStatus = async (session: SignedIn) => refusal(await client.call('GET', '/session', { session }));

/** Signs in again with the admin's own passkey, as the person would. */
async function signInAgain(session: SignedIn): Promise<Answer> {
  const options = await client.call('POST', '/sign-in/options');
  const { challenge, rpId } = options.body as { challenge: string; rpId: string };
  const assertion = session.passkey.assert({ challenge, rp_id: rpId });
  return client.call('POST', '/sign-in', { body: { assertion } });
}

beforeAll(async () => {
  runtime = await startTestRuntime();
  const support = await import('#test/integration/console/console-client');
  client = await support.consoleClient(runtime);
  refusal = support.refusal;
  organizationId = await newOrganization();
  owner = await client.signedIn('owner', organizationId);
}, 60_000);
afterAll(async () => {
  await runtime?.stop();
});

describe('the owners’ list of admins and invites', () => {
  it('lists the organization’s admins and pending invites, never an invite’s token, and the invite enrols', async () => {
    const since = new Date(Date.now() - 1000);
    const invited = await client.call('POST', '/admins/invites', {
      session: owner,
      body: { role: 'helpdesk' },
    });
    expect(invited.status).toBe(201);
    const { url, expires_at } = invited.body as { url: string; expires_at: string };
    const token = new URL(url).hash.replace(/^#invite=/, '');
    expect(url).toBe(`${client.origin}/console/#invite=${token}`);
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);

    const list = await listed(owner);
    expect(list.organization_id).toBe(organizationId);
    expect(list.admins).toContainEqual({
      id: owner.adminId,
      name: 'owner of the test',
      role: 'owner',
      enrolled_at: expect.any(String),
      last_sign_in_at: expect.any(String),
      authenticator_linked: false,
    });
    const invite = list.invites.find((each) => each.expires_at === expires_at);
    expect(invite).toMatchObject({ role: 'helpdesk', invited_by: `console:${owner.adminId}` });
    expect(JSON.stringify(list)).not.toContain(token);

    // The URL is a working invite, and the invite is an audit record naming the owner.
    expect((await client.call('POST', '/enrolment/options', { body: { invite: token } })).status).toBe(200);
    const records = await client.store.consoleRecords(organizationId, since);
    expect(records).toContainEqual(
      expect.objectContaining({
        operation: 'POST /console/api/admins/invites',
        actor_id: `console:${owner.adminId}`,
        admin_role: 'owner',
        status: 201,
      }),
    );
  });

  it('takes an enrolled invite off the list of pending invites', async () => {
    const helpdesk = await client.signedIn('helpdesk', organizationId);
    const list = await listed(owner);
    expect(list.admins.map((admin) => admin.id)).toContain(helpdesk.adminId);
    expect(list.invites.every((invite) => invite.invited_by.startsWith('console:'))).toBe(true);
  });

  it('lets only the operator invite an operator, and the operator invite into an organization it names', async () => {
    expect(
      refusal(await client.call('POST', '/admins/invites', { session: owner, body: { role: 'operator' } })),
    ).toEqual({ status: 403, code: 'CON-003' });
    const operator = await client.signedIn('operator');
    expect(
      (await client.call('POST', '/admins/invites', { session: operator, body: { role: 'operator' } }))
        .status,
    ).toBe(201);
    expect(
      (
        await client.call('POST', '/admins/invites', {
          session: operator,
          body: { role: 'auditor', organization_id: organizationId },
        })
      ).status,
    ).toBe(201);
    expect((await listed(operator, `?organization_id=${organizationId}`)).admins.map((a) => a.id)).toContain(
      owner.adminId,
    );
  });
});

describe('changing an admin’s role', () => {
  it('changes the role, ends the admin’s sessions, and records the acting owner', async () => {
    const since = new Date(Date.now() - 1000);
    const helpdesk = await client.signedIn('helpdesk', organizationId);
    expect(await sessionStatus(helpdesk)).toEqual({ status: 200, code: undefined });
    const changed = await client.call('PATCH', `/admins/${helpdesk.adminId}`, {
      session: owner,
      body: { role: 'auditor' },
    });
    expect(changed.status).toBe(200);
    expect((await listed(owner)).admins.find((admin) => admin.id === helpdesk.adminId)?.role).toBe('auditor');
    // The old session, a helpdesk's, is over: they sign in again, as an auditor.
    expect(await sessionStatus(helpdesk)).toEqual({ status: 401, code: 'CON-001' });
    const again = await signInAgain(helpdesk);
    expect(again.status).toBe(200);
    expect(again.body?.role).toBe('auditor');

    const records = await client.store.consoleRecords(organizationId, since);
    expect(records).toContainEqual(
      expect.objectContaining({
        operation: 'PATCH /console/api/admins/{id}',
        actor_id: `console:${owner.adminId}`,
        admin_role: 'owner',
        session_id: expect.any(String),
        target_id: helpdesk.adminId,
        status: 200,
      }),
    );
  });

  it('refuses the operator’s role to an organization’s admin', async () => {
    const auditor = await client.signedIn('auditor', organizationId);
    expect(
      refusal(
        await client.call('PATCH', `/admins/${auditor.adminId}`, {
          session: owner,
          body: { role: 'operator' },
        }),
      ),
    ).toEqual({ status: 400, code: 'ARG-001' });
  });
});

describe('removing an admin', () => {
  it('removes the account: its session ends, its passkey signs nobody in, and the owner is recorded', async () => {
    const since = new Date(Date.now() - 1000);
    const admin = await client.signedIn('admin', organizationId);
    const removed = await client.call('DELETE', `/admins/${admin.adminId}`, { session: owner });
    expect(removed.status).toBe(204);
    expect(await sessionStatus(admin)).toEqual({ status: 401, code: 'CON-001' });
    expect(refusal(await signInAgain(admin))).toEqual({ status: 403, code: 'CON-006' });
    expect((await listed(owner)).admins.map((each) => each.id)).not.toContain(admin.adminId);
    expect(refusal(await client.call('DELETE', `/admins/${admin.adminId}`, { session: owner }))).toEqual({
      status: 404,
      code: 'CON-004',
    });
    const records = await client.store.consoleRecords(organizationId, since);
    expect(records).toContainEqual(
      expect.objectContaining({
        operation: 'DELETE /console/api/admins/{id}',
        actor_id: `console:${owner.adminId}`,
        target_id: admin.adminId,
        status: 204,
      }),
    );
  });
});

/** The removed admin's devices in the console directory, as the store holds them (the admins' list no longer shows them). */
async function consoleDevices(adminId: string) {
  const { getConsoleApprovals } = await import('#shared/store/console-approvals');
  const { getUser } = await import('#shared/store/users');
  const setup = await getConsoleApprovals();
  if (!setup) throw new Error('The console directory was never made');
  return (await getUser({ directoryId: setup.directoryId, identifier: adminId }))?.devices ?? [];
}

/** How an auth request stands in the store. */
async function storedState(authRequestId: string) {
  const { findAuthRequest } = await import('#shared/use-cases/auth-request-outcomes');
  const { authRequestState } = await import('#shared/domain/auth-request');
  const auth = await findAuthRequest(authRequestId);
  return auth && authRequestState(auth, Math.floor(Date.now() / 1000));
}

/**
 * An admin with a linked authenticator whose removal stopped right after its first step, as a crash there would leave
 * it: the account gone, the session and the phone's link still there.
 */
async function halfRemovedAdmin(): Promise<SignedIn> {
  const leaving = await client.signedIn('admin', organizationId);
  await client.linkedAuthenticator(leaving);
  const { getAdminAccount, removeAdminAccount } = await import('#shared/store/console-admins');
  const account = await getAdminAccount(leaving.adminId);
  if (!account) throw new Error('No account was enrolled');
  expect(await removeAdminAccount(account)).toBe('changed');
  return leaving;
}

describe('removing an admin who has an authenticator, a sign-in waiting and an invite out', () => {
  it('cancels the approval, unlinks the authenticator, ends every session and revokes the invite', async () => {
    const since = new Date(Date.now() - 1000);
    const leaving = await client.signedIn('owner', organizationId);
    const device = await client.linkedAuthenticator(leaving);
    expect(await consoleDevices(leaving.adminId)).toHaveLength(1);
    const invited = await client.call('POST', '/admins/invites', {
      session: leaving,
      body: { role: 'owner' },
    });
    expect(invited.status).toBe(201);
    const invite = new URL(invited.body?.url as string).hash.replace(/^#invite=/, '');
    const waiting = await client.signInAgain(leaving);
    const approval = await client.call('POST', '/sign-in/approval', { session: waiting });
    expect(approval.status).toBe(201);
    expect(await device.pending()).toHaveLength(1);

    const removed = await client.call('DELETE', `/admins/${leaving.adminId}`, { session: owner });
    expect(removed.status).toBe(204);
    expect(await sessionStatus(leaving)).toEqual({ status: 401, code: 'CON-001' });
    expect(await sessionStatus(waiting)).toEqual({ status: 401, code: 'CON-001' });
    expect(await storedState(approval.body?.auth_request as string)).toBe('cancelled');
    // The old phone holds no link: nothing of the admin's is left in the console directory.
    expect(await consoleDevices(leaving.adminId)).toEqual([]);
    expect(refusal(await signInAgain(leaving))).toEqual({ status: 403, code: 'CON-006' });
    expect(refusal(await client.call('POST', '/enrolment/options', { body: { invite } }))).toEqual({
      status: 403,
      code: 'CON-006',
    });
    expect((await listed(owner)).invites.map((each) => each.invited_by)).not.toContain(
      `console:${leaving.adminId}`,
    );

    expect(refusal(await client.call('DELETE', `/admins/${leaving.adminId}`, { session: owner }))).toEqual({
      status: 404,
      code: 'CON-004',
    });
    const records = (await client.store.consoleRecords(organizationId, since)).filter(
      (record) =>
        record.operation === 'DELETE /console/api/admins/{id}' && record.target_id === leaving.adminId,
    );
    expect(records).toEqual([expect.objectContaining({ actor_id: `console:${owner.adminId}`, status: 204 })]);
  });

  it('finishes a removal that stopped once the account was gone: the next removal takes the rest', async () => {
    const leaving = await halfRemovedAdmin();
    expect(refusal(await signInAgain(leaving))).toEqual({ status: 403, code: 'CON-006' });
    // Its session is still stored, and already acts for nobody: the account it was signed in as is gone.
    expect(await sessionStatus(leaving)).toEqual({ status: 401, code: 'CON-001' });

    const again = await client.call('DELETE', `/admins/${leaving.adminId}`, { session: owner });
    expect(again.status).toBe(204);
    expect(await sessionStatus(leaving)).toEqual({ status: 401, code: 'CON-001' });
    expect(await consoleDevices(leaving.adminId)).toEqual([]);
    expect(refusal(await client.call('DELETE', `/admins/${leaving.adminId}`, { session: owner }))).toEqual({
      status: 404,
      code: 'CON-004',
    });
  });

  it('answers another organization’s unfinished removal as a missing admin, and leaves it as it was', async () => {
    const leaving = await halfRemovedAdmin();
    const foreignOwner = await client.signedIn('owner', await newOrganization());
    expect(
      refusal(await client.call('DELETE', `/admins/${leaving.adminId}`, { session: foreignOwner })),
    ).toEqual({ status: 404, code: 'CON-004' });
    expect(await consoleDevices(leaving.adminId)).toHaveLength(1);
  });
});

describe('the last owner', () => {
  it('may neither demote nor remove themselves while no other owner remains; with another, they may', async () => {
    const organization = await newOrganization();
    const only = await client.signedIn('owner', organization);
    const demote = await client.call('PATCH', `/admins/${only.adminId}`, {
      session: only,
      body: { role: 'admin' },
    });
    expect(refusal(demote)).toEqual({ status: 409, code: 'CON-009' });
    expect(demote.body?.error_detail).toMatch(/last owner/);
    expect(refusal(await client.call('DELETE', `/admins/${only.adminId}`, { session: only }))).toEqual({
      status: 409,
      code: 'CON-009',
    });
    expect(await sessionStatus(only)).toEqual({ status: 200, code: undefined });

    const second = await client.signedIn('owner', organization);
    const stepDown = await client.call('PATCH', `/admins/${only.adminId}`, {
      session: only,
      body: { role: 'admin' },
    });
    expect(stepDown.status).toBe(200);
    expect(await sessionStatus(only)).toEqual({ status: 401, code: 'CON-001' });
    // Now the second is the last owner.
    expect(refusal(await client.call('DELETE', `/admins/${second.adminId}`, { session: second }))).toEqual({
      status: 409,
      code: 'CON-009',
    });
  });
});

describe('who may manage admins', () => {
  it('refuses helpdesk, admin and auditor (CON-003) on every endpoint', async () => {
    const target = await client.signedIn('auditor', organizationId);
    for (const role of ['helpdesk', 'admin', 'auditor'] as const) {
      const session = await client.signedIn(role, organizationId);
      const answers = await Promise.all([
        client.call('GET', '/admins', { session }),
        client.call('POST', '/admins/invites', { session, body: { role: 'helpdesk' } }),
        client.call('PATCH', `/admins/${target.adminId}`, { session, body: { role: 'helpdesk' } }),
        client.call('DELETE', `/admins/${target.adminId}`, { session }),
      ]);
      for (const answer of answers) expect(refusal(answer)).toEqual({ status: 403, code: 'CON-003' });
    }
    expect(await sessionStatus(target)).toEqual({ status: 200, code: undefined });
  });

  it('answers another organization’s admin exactly as one that does not exist (CON-004)', async () => {
    const foreignOrganization = await newOrganization();
    const theirs = await client.signedIn('admin', foreignOrganization);
    const missing = await client.call('DELETE', `/admins/${missingId}`, { session: owner });
    for (const answer of [
      await client.call('PATCH', `/admins/${theirs.adminId}`, { session: owner, body: { role: 'auditor' } }),
      await client.call('DELETE', `/admins/${theirs.adminId}`, { session: owner }),
      await client.call('GET', `/admins?organization_id=${foreignOrganization}`, { session: owner }),
      await client.call('POST', '/admins/invites', {
        session: owner,
        body: { role: 'helpdesk', organization_id: foreignOrganization },
      }),
    ]) {
      expect(refusal(answer)).toEqual({ status: 404, code: 'CON-004' });
    }
    expect(refusal(missing)).toEqual({ status: 404, code: 'CON-004' });
    expect(await sessionStatus(theirs)).toEqual({ status: 200, code: undefined });
    expect((await listed(owner)).admins.map((admin) => admin.id)).not.toContain(theirs.adminId);
  });
});
