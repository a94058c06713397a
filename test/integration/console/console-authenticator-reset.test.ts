import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import type { SignedIn } from '#test/integration/console/console-client';

/**
 * An admin's own security in the console (docs/console.md#recovering-an-admin) over real HTTP against the local
 * runtime: an owner resets the authenticator of an admin who lost it, which ends that admin's sessions and lets their
 * next sign-in link a new one by trust on first use; nobody resets their own, helpdesk none, an owner no other
 * organization's, and never without a fresh passkey. Signing out cancels the sign-in's pending approval.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let organizationId: string;
let owner: SignedIn;

let counter = 0;
const newOrganization = async () =>
  (await client.store.organization(`Reset ${Date.now()} ${(counter += 1)}`)).organization.id;

const reset = (session: SignedIn, adminId: string) =>
  client.call('POST', `/admins/${adminId}/authenticator/reset`, { session });

/** How the auth request stands in the store. */
async function storedState(authRequestId: string) {
  const { findAuthRequest } = await import('#shared/use-cases/auth-request-outcomes');
  const { authRequestState } = await import('#shared/domain/auth-request');
  const auth = await findAuthRequest(authRequestId);
  return auth && authRequestState(auth, Math.floor(Date.now() / 1000));
}

/** A new sign-in of the admin's, its approval asked for: the number shown and the request as the device sees it. */
async function pendingSignIn(admin: SignedIn, device: Authenticator) {
  const session = await client.signInAgain(admin);
  const started = await client.call('POST', '/sign-in/approval', { session });
  expect(started.status).toBe(201);
  const [pending] = await device.pending();
  expect(pending?.auth_request).toBe(started.body?.auth_request);
  return {
    session,
    number: started.body?.number as string,
    authRequestId: started.body?.auth_request as string,
  };
}

/** An admin of the organization with a web authenticator linked to approve their sign-ins. */
async function adminWithAuthenticator(role: 'admin' | 'owner' = 'admin', organization = organizationId) {
  const admin = await client.signedIn(role, organization);
  const device = await client.linkedAuthenticator(admin);
  return { admin, device };
}

beforeAll(async () => {
  runtime = await startTestRuntime();
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
  organizationId = await newOrganization();
  owner = await client.signedIn('owner', organizationId);
}, 60_000);
afterAll(() => runtime?.stop());

describe('an owner resets the authenticator of an admin who lost it', () => {
  it('unlinks it, ends the admin’s sessions, and their next sign-in links a new one and is approved on it', async () => {
    const since = new Date(Date.now() - 1000);
    const { admin, device } = await adminWithAuthenticator();
    // A link of a further authenticator is under way, and a sign-in waits for an approval on the lost one, when the
    // owner steps in.
    const further = await client.call('POST', '/authenticator/link', { session: admin });
    expect(further.status).toBe(201);
    const waiting = await pendingSignIn(admin, device);

    const answer = await reset(owner, admin.adminId);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: admin.adminId, authenticators_unlinked: 1, sessions_ended: 2 });
    expect(client.refusal(await client.call('GET', '/session', { session: admin }))).toEqual({
      status: 401,
      code: 'CON-001',
    });
    expect(client.refusal(await client.call('GET', '/session', { session: waiting.session }))).toEqual({
      status: 401,
      code: 'CON-001',
    });
    expect(await storedState(waiting.authRequestId)).toBe('cancelled');
    const listed = await client.call('GET', '/admins', { session: owner });
    const row = (listed.body?.admins as { id: string; authenticator_linked: boolean }[]).find(
      (each) => each.id === admin.adminId,
    );
    expect(row?.authenticator_linked).toBe(false);

    // The link under way went with the rest: its code links nothing.
    await expect(
      linkAuthenticator({ baseUrl: runtime.baseUrl, code: further.body?.code as string }),
    ).rejects.toThrow();

    // The admin signs in with their passkey and links a new authenticator at once, as after enrolment.
    const session = await client.signInAgain(admin);
    expect((await client.call('GET', '/authenticator', { session })).body).toEqual({
      linked: false,
      devices: [],
    });
    const newDevice = await client.linkedAuthenticator(session);
    expect(await newDevice.linkState()).toMatchObject({ status: 'linked' });
    expect(await newDevice.linkState()).not.toHaveProperty('answers_from');
    const started = await client.call('POST', '/sign-in/approval', { session });
    expect(started.status).toBe(201);
    const [pending] = await newDevice.pending();
    if (!pending) throw new Error('The approval reached no device');
    await newDevice.answer(pending, { approve: true, numberMatchCode: started.body?.number as string });
    expect((await client.call('GET', '/sign-in/approval', { session })).body).toMatchObject({
      stage: 'approved',
    });
    expect((await client.call('GET', '/directories', { session })).status).toBe(200);

    // On the audit trail: the owner who did it, the admin it was done to.
    const records = (await client.store.consoleRecords(organizationId, since)).filter(
      (record) => record.operation === 'POST /console/api/admins/{id}/authenticator/reset',
    );
    expect(records).toEqual([
      expect.objectContaining({
        actor_id: `console:${owner.adminId}`,
        admin_role: 'owner',
        target_id: admin.adminId,
        outcome: 'success',
      }),
    ]);
  });

  it('lets the operator reset an organization’s admin', async () => {
    const { admin } = await adminWithAuthenticator();
    const operator = await client.signedIn('operator');
    const answer = await reset(operator, admin.adminId);
    expect(answer.body).toMatchObject({ id: admin.adminId, authenticators_unlinked: 1 });
    expect((await client.call('GET', '/session', { session: admin })).status).toBe(401);
  });

  it('refuses an admin their own, helpdesk anyone’s, an owner another organization’s, and a stale passkey', async () => {
    const { admin, device } = await adminWithAuthenticator('owner');
    expect(client.refusal(await reset(admin, admin.adminId))).toEqual({ status: 403, code: 'CON-003' });

    const helpdesk = await client.signedIn('helpdesk', organizationId);
    expect(client.refusal(await reset(helpdesk, admin.adminId))).toEqual({ status: 403, code: 'CON-003' });

    const foreignOwner = await client.signedIn('owner', await newOrganization());
    expect(client.refusal(await reset(foreignOwner, admin.adminId))).toEqual({
      status: 404,
      code: 'CON-004',
    });
    expect(client.refusal(await reset(owner, '00000000-0000-4000-8000-000000000000'))).toEqual({
      status: 404,
      code: 'CON-004',
    });

    const stale = await client.signedIn('owner', organizationId);
    await client.store.ageSession(stale.cookie, { idleSeconds: 30, sinceSignInSeconds: 6 * 60 });
    expect(client.refusal(await reset(stale, admin.adminId))).toEqual({ status: 403, code: 'CON-010' });

    // None of them changed anything: the authenticator approves the admin's next sign-in.
    expect((await client.call('GET', '/session', { session: admin })).status).toBe(200);
    const { session, number } = await pendingSignIn(admin, device);
    const [pending] = await device.pending();
    if (!pending) throw new Error('The approval reached no device');
    await device.answer(pending, { approve: true, numberMatchCode: number });
    expect((await client.call('GET', '/sign-in/approval', { session })).body).toMatchObject({
      stage: 'approved',
    });
  });
});

describe('signing out while the sign-in’s approval is pending', () => {
  it('cancels the approval, so the authenticator stops showing it and the next sign-in may ask again', async () => {
    const since = new Date(Date.now() - 1000);
    const { admin, device } = await adminWithAuthenticator();
    const waiting = await pendingSignIn(admin, device);

    const signedOut = await client.call('POST', '/sign-out', { session: waiting.session });
    expect(signedOut.status).toBe(204);
    expect(await device.pending()).toEqual([]);
    expect(await storedState(waiting.authRequestId)).toBe('cancelled');
    const records = (await client.store.consoleRecords(organizationId, since)).filter(
      (record) => record.operation === 'POST /console/api/sign-out',
    );
    expect(records).toEqual([expect.objectContaining({ target_id: waiting.authRequestId })]);

    const again = await pendingSignIn(admin, device);
    expect(again.authRequestId).not.toBe(waiting.authRequestId);
  });
});
