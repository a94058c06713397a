import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { SoftwareAuthenticator, type Tampering } from '#test/support/webauthn-authenticator';

/**
 * The console's API (docs/console.md) over real HTTP against the local runtime, as the console's pages will use it at
 * `http://localhost:<port>`: enrolment from an invite with a passkey, sign-in, the session cookie, CSRF, tenant
 * isolation, timeouts and the sign-in attempt limit.
 */
let runtime: TestRuntime;
/** The API as the browser reaches it locally, which is the passkeys' origin. */
let origin: string;
let store: typeof import('#test/integration/console/console-store');

beforeAll(async () => {
  runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
  store = await import('#test/integration/console/console-store');
});
afterAll(async () => {
  await runtime?.stop();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Headers;
}

interface Call {
  readonly body?: unknown;
  readonly cookie?: string;
  readonly csrf?: string;
  readonly headers?: Record<string, string>;
}

async function call(method: string, path: string, options: Call = {}): Promise<Answer> {
  const response = await fetch(`${origin}/console/api${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    headers: response.headers,
  };
}

const refusal = (answer: Answer) => ({ status: answer.status, code: answer.body?.error_code });

function inviteToken(url: string): string {
  return new URL(url).hash.replace(/^#invite=/, '');
}

/** An admin who enrolled from an invite, with the passkey they enrolled. */
interface Admin {
  readonly authenticator: SoftwareAuthenticator;
  readonly adminId: string;
}

async function enrol(
  invite: string,
  name: string,
  tampering: Tampering = {},
): Promise<Answer & { authenticator: SoftwareAuthenticator }> {
  const authenticator = new SoftwareAuthenticator(origin);
  const options = await call('POST', '/enrolment/options', { body: { invite } });
  if (options.status !== 200) return { ...options, authenticator };
  const registration = authenticator.register(
    options.body as unknown as PublicKeyCredentialCreationOptionsJSON,
    tampering,
  );
  return { ...(await call('POST', '/enrolment', { body: { invite, name, registration } })), authenticator };
}

async function invitedAdmin(
  role: 'owner' | 'auditor',
  organizationId: string | null = runtime.organizationId,
) {
  const invite = await store.invite(organizationId, role, origin);
  const enrolled = await enrol(inviteToken(invite.url), `${role} of the test`);
  expect(enrolled.status).toBe(201);
  return { authenticator: enrolled.authenticator, adminId: enrolled.body?.admin_id as string };
}

async function signIn(admin: Admin, tampering: Tampering = {}): Promise<Answer> {
  const options = await call('POST', '/sign-in/options');
  const { challenge, rpId } = options.body as { challenge: string; rpId: string };
  const assertion = admin.authenticator.assert({ challenge, rp_id: rpId }, tampering);
  return call('POST', '/sign-in', { body: { assertion } });
}

/** A signed-in admin's cookie and CSRF token, as the page holds them. */
async function session(admin: Admin): Promise<{ cookie: string; csrf: string }> {
  const answer = await signIn(admin);
  expect(answer.status).toBe(200);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return { cookie, csrf: answer.body?.csrf_token as string };
}

describe('enrolment from an invite', () => {
  it('makes an admin of the invite’s organization and role, with the invite in the URL’s fragment', async () => {
    const invite = await store.invite(runtime.organizationId, 'auditor', origin);
    expect(invite.url).toMatch(new RegExp(`^${origin}/console/#invite=[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(invite.expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000);
    const enrolled = await enrol(inviteToken(invite.url), 'Ada');
    expect(enrolled.status).toBe(201);
    expect(enrolled.body).toMatchObject({ role: 'auditor', organization_id: runtime.organizationId });
  });

  it('refuses an invite the second time', async () => {
    const invite = inviteToken((await store.invite(runtime.organizationId, 'owner', origin)).url);
    expect((await enrol(invite, 'First')).status).toBe(201);
    expect(refusal(await enrol(invite, 'Second'))).toEqual({ status: 403, code: 'CON-006' });
  });

  it('lets only one of two enrolments started with one invite through', async () => {
    const invite = inviteToken((await store.invite(runtime.organizationId, 'owner', origin)).url);
    const first = new SoftwareAuthenticator(origin);
    const second = new SoftwareAuthenticator(origin);
    const [optionsA, optionsB] = await Promise.all([
      call('POST', '/enrolment/options', { body: { invite } }),
      call('POST', '/enrolment/options', { body: { invite } }),
    ]);
    const finish = (authenticator: SoftwareAuthenticator, options: Answer) =>
      call('POST', '/enrolment', {
        body: {
          invite,
          name: 'Racer',
          registration: authenticator.register(
            options.body as unknown as PublicKeyCredentialCreationOptionsJSON,
          ),
        },
      });
    const answers = await Promise.all([finish(first, optionsA), finish(second, optionsB)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 403]);
  });

  it('refuses an invite past its 30 minutes', async () => {
    const invite = await store.invite(
      runtime.organizationId,
      'owner',
      origin,
      new Date(Date.now() - 31 * 60_000),
    );
    expect(refusal(await enrol(inviteToken(invite.url), 'Late'))).toEqual({ status: 403, code: 'CON-006' });
  });

  it('refuses a passkey that did not verify the user, and keeps the invite', async () => {
    const invite = inviteToken((await store.invite(runtime.organizationId, 'owner', origin)).url);
    expect(refusal(await enrol(invite, 'No UV', { userVerified: false }))).toEqual({
      status: 403,
      code: 'CON-006',
    });
    expect(refusal(await enrol(invite, 'Other origin', { origin: 'https://console.example' }))).toEqual({
      status: 403,
      code: 'CON-006',
    });
    expect((await enrol(invite, 'Verified')).status).toBe(201);
  });
});

describe('sign-in', () => {
  it('sets the session cookie: __Host-, HttpOnly, Secure, SameSite=Strict, path /', async () => {
    const admin = await invitedAdmin('auditor');
    const answer = await signIn(admin);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('set-cookie')).toMatch(
      /^__Host-console=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=28800$/,
    );
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toMatchObject({
      admin_id: admin.adminId,
      role: 'auditor',
      organization_id: runtime.organizationId,
      stage: 'passkey',
    });
  });

  it('tells the page who is signed in, with the CSRF token', async () => {
    const admin = await invitedAdmin('auditor');
    const { cookie, csrf } = await session(admin);
    const answer = await call('GET', '/session', { cookie });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'auditor of the test', role: 'auditor', csrf_token: csrf });
  });

  it('refuses an assertion used twice, and one over another challenge', async () => {
    const admin = await invitedAdmin('auditor');
    const options = await call('POST', '/sign-in/options');
    const { challenge, rpId } = options.body as { challenge: string; rpId: string };
    const assertion = admin.authenticator.assert({ challenge, rp_id: rpId });
    expect((await call('POST', '/sign-in', { body: { assertion } })).status).toBe(200);
    expect(refusal(await call('POST', '/sign-in', { body: { assertion } }))).toEqual({
      status: 403,
      code: 'CON-006',
    });
    expect(refusal(await signIn(admin, { challenge: 'AAAA' }))).toEqual({ status: 403, code: 'CON-006' });
  });

  it('refuses every request without a session', async () => {
    expect(refusal(await call('GET', '/session'))).toEqual({ status: 401, code: 'CON-001' });
    expect(
      refusal(await call('GET', '/directories', { cookie: `__Host-console=${'A'.repeat(43)}` })),
    ).toEqual({
      status: 401,
      code: 'CON-001',
    });
  });
});

describe('a session', () => {
  it('refuses a change without the CSRF token, with a wrong one, or from another site', async () => {
    const admin = await invitedAdmin('auditor');
    const { cookie, csrf } = await session(admin);
    expect(refusal(await call('POST', '/sign-out', { cookie }))).toEqual({ status: 403, code: 'CON-002' });
    expect(refusal(await call('POST', '/sign-out', { cookie, csrf: `${csrf.slice(1)}A` }))).toEqual({
      status: 403,
      code: 'CON-002',
    });
    expect(
      refusal(await call('POST', '/sign-out', { cookie, csrf, headers: { 'sec-fetch-site': 'cross-site' } })),
    ).toEqual({ status: 403, code: 'CON-002' });
    expect(
      refusal(await call('POST', '/sign-out', { cookie, csrf, headers: { origin: 'https://evil.example' } })),
    ).toEqual({ status: 403, code: 'CON-002' });
    expect((await call('GET', '/session', { cookie })).status).toBe(200);
    const signedOut = await call('POST', '/sign-out', {
      cookie,
      csrf,
      headers: { 'sec-fetch-site': 'same-origin', origin },
    });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get('set-cookie')).toBe(
      '__Host-console=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0',
    );
    expect(refusal(await call('GET', '/session', { cookie }))).toEqual({ status: 401, code: 'CON-001' });
  });

  it('ends after 15 idle minutes, and 8 hours after sign-in', async () => {
    const admin = await invitedAdmin('auditor');
    const idle = await session(admin);
    await store.ageSession(idle.cookie, { idleSeconds: 15 * 60, sinceSignInSeconds: 15 * 60 });
    expect(refusal(await call('GET', '/session', { cookie: idle.cookie }))).toEqual({
      status: 401,
      code: 'CON-001',
    });
    const busy = await session(admin);
    await store.ageSession(busy.cookie, { idleSeconds: 30, sinceSignInSeconds: 8 * 3600 });
    expect(refusal(await call('GET', '/session', { cookie: busy.cookie }))).toEqual({
      status: 401,
      code: 'CON-001',
    });
  });
});

describe('the audit trail', () => {
  it('records enrolment, sign-in and sign-out naming the admin, the role and the session', async () => {
    const since = new Date(Date.now() - 1000);
    const admin = await invitedAdmin('auditor');
    const { cookie, csrf } = await session(admin);
    const sessionId = (await store.consoleRecords(runtime.organizationId, since)).find(
      (record) =>
        record.operation === 'POST /console/api/sign-in' && record.actor_id === `console:${admin.adminId}`,
    )?.session_id;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(cookie).not.toContain(sessionId as string);
    expect((await call('POST', '/sign-out', { cookie, csrf })).status).toBe(204);
    const records = (await store.consoleRecords(runtime.organizationId, since))
      .filter((record) => record.actor_id === `console:${admin.adminId}`)
      .map((record) => [record.operation, record.admin_role, record.session_id ?? null, record.outcome]);
    expect(records).toEqual([
      ['POST /console/api/enrolment', 'auditor', null, 'success'],
      ['POST /console/api/sign-in', 'auditor', sessionId, 'success'],
      ['POST /console/api/sign-out', 'auditor', sessionId, 'success'],
    ]);
  });
});

describe('directories', () => {
  it('lists the admin’s organization’s, and answers another organization’s as one that does not exist', async () => {
    const own = await store.directory(runtime.organizationId, `Console own ${Date.now()}`);
    const foreign = await store.directory(
      (await store.organization('Console other')).organization.id,
      'Theirs',
    );
    const { cookie } = await session(await invitedAdmin('auditor'));

    const listed = await call('GET', '/directories', { cookie });
    expect(listed.status).toBe(200);
    const ids = (listed.body?.directories as { id: string; organization_id: string }[]).map(
      (entry) => entry.id,
    );
    expect(ids).toContain(own);
    expect(ids).not.toContain(foreign);
    expect((await call('GET', `/directories/${own}`, { cookie })).body).toMatchObject({ id: own });

    const theirs = await call('GET', `/directories/${foreign}`, { cookie });
    const missingId = '00000000-0000-4000-8000-000000000000';
    const missing = await call('GET', `/directories/${missingId}`, { cookie });
    expect(refusal(theirs)).toEqual({ status: 404, code: 'CON-004' });
    expect({
      ...theirs.body,
      error_detail: String(theirs.body?.error_detail).replace(foreign, '<id>'),
    }).toEqual({
      ...missing.body,
      error_detail: String(missing.body?.error_detail).replace(missingId, '<id>'),
    });
  });

  it('waits for an owner’s sign-in to be approved before it shows anything', async () => {
    const { cookie } = await session(await invitedAdmin('owner'));
    expect(refusal(await call('GET', '/directories', { cookie }))).toEqual({ status: 403, code: 'CON-005' });
    expect((await call('GET', '/session', { cookie })).body).toMatchObject({
      role: 'owner',
      stage: 'passkey',
    });
  });
});

describe('bodies', () => {
  it('refuses a body past the console’s bound, and one its schema refuses, naming the field', async () => {
    const tooLarge = await call('POST', '/enrolment/options', { body: { invite: 'x'.repeat(40_000) } });
    expect(refusal(tooLarge)).toEqual({ status: 413, code: 'HTTP-413' });
    const wrong = await call('POST', '/enrolment/options', { body: { invite: 'short' } });
    expect(refusal(wrong)).toEqual({ status: 400, code: 'ARG-001' });
    expect(wrong.body?.error_detail).toContain('invite');
  });
});

// Last: it uses up this address's sign-in attempts (those of the tests before count too, the refused ones).
describe('the sign-in attempt limit', () => {
  it('answers 429 with Retry-After after 10 failed sign-ins, then even to a good passkey', async () => {
    const admin = await invitedAdmin('auditor');
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= 10; attempt += 1) {
      statuses.push((await signIn(admin, { userVerified: false })).status);
    }
    const refused = statuses.filter((status) => status === 403).length;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(10);
    expect(statuses).toEqual([...Array(refused).fill(403), ...Array(11 - refused).fill(429)]);
    const limited = await signIn(admin);
    expect(refusal(limited)).toEqual({ status: 429, code: 'HTTP-429' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
  });
});
