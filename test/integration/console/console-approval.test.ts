import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal as signedRefusal } from '#test/support/tree';
import { SoftwareAuthenticator } from '#test/support/webauthn-authenticator';

/**
 * The console's sign-in approval (docs/console.md#approval) over real HTTP against the local runtime: an admin links
 * their web authenticator into the console's own directory, and approves each sign-in on it with the number the
 * console shows, through the device API exactly as the web authenticator does.
 */
let runtime: TestRuntime;
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

interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

async function call(method: string, path: string, session?: Session): Promise<Answer> {
  const response = await fetch(`${origin}/console/api${path}`, {
    method,
    headers: session ? { cookie: session.cookie, 'x-csrf-token': session.csrf } : {},
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    headers: response.headers,
  };
}

const refusal = (answer: Answer) => ({ status: answer.status, code: answer.body?.error_code });

/** An admin of the demo organization, enrolled from an invite with a software passkey. */
async function enrolledAdmin(role: 'owner' | 'auditor' = 'owner'): Promise<SoftwareAuthenticator> {
  const invite = new URL((await store.invite(runtime.organizationId, role, origin)).url).hash.replace(
    /^#invite=/,
    '',
  );
  const authenticator = new SoftwareAuthenticator(origin);
  const options = await fetch(`${origin}/console/api/enrolment/options`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invite }),
  });
  const registration = authenticator.register(
    (await options.json()) as PublicKeyCredentialCreationOptionsJSON,
  );
  const enrolled = await fetch(`${origin}/console/api/enrolment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invite, name: `${role} who approves`, registration }),
  });
  expect(enrolled.status).toBe(201);
  return authenticator;
}

async function signIn(passkey: SoftwareAuthenticator): Promise<Session> {
  const options = await fetch(`${origin}/console/api/sign-in/options`, { method: 'POST' });
  const { challenge, rpId } = (await options.json()) as { challenge: string; rpId: string };
  const response = await fetch(`${origin}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ assertion: passkey.assert({ challenge, rp_id: rpId }) }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { csrf_token: string };
  return {
    cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] as string,
    csrf: body.csrf_token,
  };
}

/** Links a web authenticator as the admin would: the console's link, then the device API with the code alone. */
async function linkDevice(session: Session): Promise<Authenticator> {
  const link = await call('POST', '/authenticator/link', session);
  expect(link.status).toBe(201);
  const code = link.body?.code as string;
  expect(link.body?.url).toBe(`${origin}/authenticator/#code=${code}`);
  expect(link.body?.qr_url).toMatch(new RegExp(`/public/v3/qrcodes/${code}$`));
  return new Authenticator(await linkAuthenticator({ baseUrl: runtime.baseUrl, code }));
}

/** Starts the session's approval; the number the console shows, and the request as the device sees it. */
async function askApproval(session: Session, device: Authenticator) {
  const started = await call('POST', '/sign-in/approval', session);
  expect(started.status).toBe(201);
  const [pending] = await device.pending();
  if (!pending) throw new Error('The approval reached no device');
  return { number: started.body?.number as string, pending, started };
}

const wrongNumber = (number: string) => String((Number(number) + 1) % 1000).padStart(3, '0');

// First in the file: the console's directory and service do not exist yet.
describe('the console’s first uses', () => {
  it('converge on one directory however many race to make it', async () => {
    const sessions = await Promise.all(
      [enrolledAdmin(), enrolledAdmin(), enrolledAdmin()].map(async (admin) => signIn(await admin)),
    );
    const links = await Promise.all(sessions.map((session) => call('POST', '/authenticator/link', session)));
    // Those that found the making under way were told to retry; the retry finds it made.
    const codes = await Promise.all(
      links.map(async (link, index) => {
        if (link.status === 503)
          return (await call('POST', '/authenticator/link', sessions[index])).body?.code;
        expect(link.status).toBe(201);
        return link.body?.code;
      }),
    );
    const devices = await Promise.all(
      codes.map((code) => linkAuthenticator({ baseUrl: runtime.baseUrl, code: code as string })),
    );
    expect(new Set(devices.map((device) => device.directoryId)).size).toBe(1);
  });
});

describe('a sign-in approved on the admin’s own authenticator', () => {
  it('moves the session to approved with the number the console shows, and the admin may act', async () => {
    const since = new Date();
    const session = await signIn(await enrolledAdmin());
    expect((await call('GET', '/session', session)).body?.stage).toBe('passkey');
    expect(refusal(await call('GET', '/directories', session))).toEqual({ status: 403, code: 'CON-005' });
    expect(refusal(await call('POST', '/sign-in/approval', session))).toEqual({
      status: 409,
      code: 'CON-007',
    });
    expect((await call('GET', '/authenticator', session)).body).toEqual({ linked: false, devices: [] });

    const device = await linkDevice(session);
    expect((await call('GET', '/authenticator', session)).body).toMatchObject({ linked: true });
    const { number, pending, started } = await askApproval(session, device);
    expect(started.body).toMatchObject({ number: expect.stringMatching(/^\d{3}$/) });
    expect(pending).toMatchObject({
      number_match: true,
      context: expect.stringMatching(/^Console sign-in as owner from /),
    });
    expect(JSON.stringify(pending)).not.toContain(`"${number}"`);
    expect((await call('GET', '/sign-in/approval', session)).body).toMatchObject({
      stage: 'passkey',
      state: 'pending',
      number,
    });

    await device.answer(pending, { approve: true, numberMatchCode: number });
    expect((await call('GET', '/sign-in/approval', session)).body).toMatchObject({
      stage: 'approved',
      state: 'approved',
    });
    expect((await call('GET', '/session', session)).body?.stage).toBe('approved');
    expect((await call('GET', '/directories', session)).status).toBe(200);

    const operations = (await store.consoleRecords(runtime.organizationId, since))
      .filter((record) => record.target_id === started.body?.auth_request)
      .map((record) => [record.operation, record.outcome]);
    expect(operations).toEqual(
      expect.arrayContaining([
        ['POST /console/api/sign-in/approval', 'success'],
        ['GET /console/api/sign-in/approval', 'success'],
      ]),
    );
  });

  it('ends the session once wrong numbers end the request', async () => {
    const session = await signIn(await enrolledAdmin());
    const device = await linkDevice(session);
    const { number, pending } = await askApproval(session, device);
    for (let attempt = 0; attempt < 3; attempt++) {
      await signedRefusal(device.answer(pending, { approve: true, numberMatchCode: wrongNumber(number) }));
    }
    const read = await call('GET', '/sign-in/approval', session);
    expect(read.body).toMatchObject({ stage: 'ended', state: 'failed' });
    expect(read.headers.get('set-cookie')).toMatch(/^__Host-console=;.*Max-Age=0/);
    expect(refusal(await call('GET', '/session', session))).toEqual({ status: 401, code: 'CON-001' });
  });

  it('ends the session when the admin denies it', async () => {
    const session = await signIn(await enrolledAdmin());
    const device = await linkDevice(session);
    const { pending } = await askApproval(session, device);
    await device.answer(pending, { approve: false });
    expect((await call('GET', '/sign-in/approval', session)).body).toMatchObject({
      stage: 'ended',
      state: 'denied',
    });
    expect(refusal(await call('GET', '/session', session))).toEqual({ status: 401, code: 'CON-001' });
  });

  it('links a further authenticator only from an approved session, and the linked one confirms it', async () => {
    const passkey = await enrolledAdmin();
    const device = await linkDevice(await signIn(passkey));
    const session = await signIn(passkey);
    expect(refusal(await call('POST', '/authenticator/link', session))).toEqual({
      status: 403,
      code: 'CON-005',
    });
    const { number, pending } = await askApproval(session, device);
    await device.answer(pending, { approve: true, numberMatchCode: number });
    expect((await call('GET', '/sign-in/approval', session)).body?.stage).toBe('approved');
    const link = await call('POST', '/authenticator/link', session);
    expect(link.status).toBe(201);
    const second = new Authenticator(
      await linkAuthenticator({ baseUrl: runtime.baseUrl, code: link.body?.code as string }),
    );
    expect((await second.linkState()).status).toBe('awaiting-confirmation');
  });

  it('lets only the session that asked read its approval, and one approval pend per admin', async () => {
    const passkey = await enrolledAdmin();
    const asking = await signIn(passkey);
    const device = await linkDevice(asking);
    const other = await signIn(passkey);
    await askApproval(asking, device);
    expect(refusal(await call('GET', '/sign-in/approval', other))).toEqual({ status: 404, code: 'CON-004' });
    const second = await call('POST', '/sign-in/approval', other);
    expect(refusal(second)).toEqual({ status: 409, code: 'CON-008' });
    expect(second.body?.error_data).toEqual({ expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await call('GET', '/sign-in/approval', asking)).body?.state).toBe('pending');
    expect((await call('GET', '/session', other)).body?.stage).toBe('passkey');
  });

  it('asks no approval of a role that only reads', async () => {
    const session = await signIn(await enrolledAdmin('auditor'));
    expect(refusal(await call('POST', '/sign-in/approval', session))).toEqual({
      status: 403,
      code: 'CON-003',
    });
  });
});

describe('the console’s own directory', () => {
  it('is out of reach of the organization’s signed API', async () => {
    const session = await signIn(await enrolledAdmin());
    const device = await linkDevice(session);
    const consoleDirectory = device.state.directoryId;
    const adminId = (await call('GET', '/session', session)).body?.admin_id as string;
    const organization = runtime.client();
    const listed = await organization.call<{ id: string }[]>('GET', '/organization/v3/directories');
    expect(listed.body?.map((directory) => directory.id)).not.toContain(consoleDirectory);
    const asDirectory = { subject: `dir:${consoleDirectory}` };
    const unlink = await signedRefusal(
      organization.call('DELETE', '/directory/v3/devices', {
        ...asDirectory,
        body: { identifier: adminId, device_id: device.state.deviceId },
      }),
    );
    expect(unlink.status).toBe(403);
    const link = await signedRefusal(
      organization.call('POST', '/directory/v3/devices', { ...asDirectory, body: { identifier: adminId } }),
    );
    expect(link.status).toBe(403);
    expect((await device.pending()).length).toBe(0);
  });
});
