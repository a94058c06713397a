import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '#shared/client/api-client';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { createDirectory, refusal, refusedWith, uniqueName } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
/** A scene whose directory has denial context inquiry off. */
let plain: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  [scene, plain] = await Promise.all([
    newAuthScene(runtime),
    newAuthScene(runtime, { denialInquiry: false }),
  ]);
  await Promise.all([scene.linkDevice('alice'), plain.linkDevice('alice')]);
});
afterAll(async () => {
  await runtime?.stop();
});

const reasons = [
  { id: 'NOTME', reason: 'I did not ask for this', fraud: true },
  { id: 'LATER', reason: 'Not now', fraud: false },
];

/** Creates a request that should be accepted, then cancels it so the user is free for the next case. */
async function accepted(body: Record<string, unknown>, on: AuthScene = scene): Promise<void> {
  const created = await on.ask({ username: 'alice', ...body });
  await on.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
}

async function refused(body: Record<string, unknown>, on: AuthScene = scene) {
  const error = await refusal(on.ask({ username: 'alice', ...body }));
  return { status: error.status, code: error.errorCode, detail: String(error.errorDetail) };
}

describe('POST /service/v3/auths refuses', () => {
  it.each([
    ['no username', { username: undefined }, /username/],
    ['an empty username', { username: '' }, /username/],
    ['a username that is a number', { username: 42 }, /username/],
    ['a username that is an object', { username: { identifier: 'alice' } }, /username/],
    ['a username over 256 characters', { username: 'a'.repeat(257) }, /username/],
    ['a ttl under 30', { ttl: 29 }, /ttl: must be 30 to 600/],
    ['a ttl over 600', { ttl: 601 }, /ttl: must be 30 to 600/],
    ['a ttl that is not an integer', { ttl: 30.5 }, /ttl: must be an integer/],
    ['a ttl that is a string', { ttl: '300' }, /ttl/],
    ['a context over 400 characters', { context: 'x'.repeat(401) }, /context/],
    ['a field it does not know', { colour: 'red' }, /colour/],
    ['one denial reason', { denial_reasons: [reasons[0]] }, /denial_reasons: must have at least 2/],
    [
      'a denial reason id of 6 characters',
      { denial_reasons: [reasons[0], { ...reasons[1], id: 'ABCDEF' }] },
      /id: must be 1 to 5 characters/,
    ],
    [
      'an empty denial reason id',
      { denial_reasons: [reasons[0], { ...reasons[1], id: '' }] },
      /id: must be 1 to 5 characters/,
    ],
    [
      'duplicate denial reason ids',
      { denial_reasons: [reasons[0], { ...reasons[1], id: 'NOTME' }] },
      /ids must be unique/,
    ],
    [
      'duplicate denial reasons',
      { denial_reasons: [reasons[0], { ...reasons[1], reason: reasons[0]?.reason }] },
      /reasons must be unique/,
    ],
    [
      'denial reasons none of which is fraud',
      { denial_reasons: [{ ...reasons[0], fraud: false }, reasons[1]] },
      /at least one must have fraud true/,
    ],
    ['a denial reason without fraud', { denial_reasons: [reasons[0], { id: 'X', reason: 'Y' }] }, /fraud/],
  ])('%s with ARG-001', async (_, body, detail) => {
    const result = await refused(body);
    expect(result).toMatchObject({ status: 400, code: 'ARG-001' });
    expect(result.detail).toMatch(detail);
  });

  it('denial reasons when the directory has denial context inquiry off, with ARG-001', async () => {
    const result = await refused({ denial_reasons: reasons }, plain);
    expect(result).toMatchObject({ status: 400, code: 'ARG-001' });
    expect(result.detail).toMatch(/Denial Context Inquiry is disabled/);
  });

  it.each([
    ['minimum_requirements that is not a list', { minimum_requirements: 'all', factors: [] }],
    [
      'any combined with a type',
      {
        minimum_requirements: [{ requirement: 'authenticated', any: 1, knowledge: 1 }],
        factors: [],
      },
    ],
    [
      'a geofence with a negative radius',
      {
        minimum_requirements: [],
        factors: [
          {
            factor: 'geofence',
            requirement: 'forced requirement',
            priority: 1,
            attributes: { locations: [{ latitude: 1, longitude: 1, radius: -5 }] },
          },
        ],
      },
    ],
    ['a service policy shape', { type: 'METHOD_AMOUNT', amount: 1 }],
    ['a policy that is not an object', 'strict'],
  ])('a policy with %s, with SVC-002', async (_, policy) => {
    expect(await refused({ policy })).toMatchObject({ status: 400, code: 'SVC-002' });
  });

  it('an unknown user, a null user, and a user whose device has not linked, with 404', async () => {
    expect(await refused({ username: 'nobody' })).toMatchObject({ status: 404, code: 'HTTP-404' });
    // What an SDK sends when the application has no identifier for the user: nobody, so 404, not ARG-001.
    expect(await refused({ username: null })).toMatchObject({ status: 404, code: 'HTTP-404' });
    await scene.organization.client.call('POST', '/directory/v3/devices', {
      subject: `dir:${scene.directoryId}`,
      body: { identifier: 'unlinked' },
    });
    expect(await refused({ username: 'unlinked' })).toMatchObject({ status: 404, code: 'HTTP-404' });
  });

  it('an inactive service with 403', async () => {
    await scene.organization.client.call('PATCH', '/directory/v3/services', {
      subject: `dir:${scene.directoryId}`,
      body: { service_id: scene.serviceId, active: false },
    });
    try {
      expect(await refused({})).toMatchObject({ status: 403 });
    } finally {
      await scene.organization.client.call('PATCH', '/directory/v3/services', {
        subject: `dir:${scene.directoryId}`,
        body: { service_id: scene.serviceId, active: true },
      });
    }
  });
});

describe('POST /service/v3/auths accepts', () => {
  it.each([
    ['the shortest ttl', { ttl: 30 }],
    ['the longest ttl', { ttl: 600 }],
    ['nulls for every optional field', { ttl: null, context: null, title: null, denial_reasons: null }],
    ['an empty denial reason list', { denial_reasons: [] }],
    [
      'fraud flags sent as strings',
      {
        denial_reasons: [
          { ...reasons[0], fraud: 'True' },
          { ...reasons[1], fraud: 'false' },
        ],
      },
    ],
    ['denial reasons of 1 and 5 characters', { denial_reasons: [reasons[0], { ...reasons[1], id: 'L' }] }],
    [
      'the legacy policy PY sends',
      {
        policy: {
          minimum_requirements: [
            { requirement: 'authenticated', any: 2, knowledge: 0, inherence: 0, possession: 0 },
          ],
          factors: [
            {
              factor: 'device integrity',
              requirement: 'forced requirement',
              priority: 1,
              quickfail: false,
              attributes: { 'factor enabled': 1 },
            },
          ],
        },
      },
    ],
  ])('%s', async (_, body) => {
    await accepted(body);
  });
});

describe('an Organization Service', () => {
  let organizationService: { id: string; call: (body: Record<string, unknown>) => Promise<unknown> };

  beforeAll(async () => {
    const id = (
      await scene.organization.client.call<{ id: string }>('POST', '/organization/v3/services', {
        body: { name: uniqueName('Org service') },
      })
    ).body?.id as string;
    organizationService = {
      id,
      call: (body) =>
        scene.organization.client.call('POST', '/service/v3/auths', { subject: `svc:${id}`, body }),
    };
  });

  it.each([
    ['title', { title: 'Sign in' }],
    ['push_title', { push_title: 'Sign in' }],
    ['push_body', { push_body: 'Approve' }],
    ['denial_reasons', { denial_reasons: reasons }],
  ])('refuses %s with ARG-001', async (field, body) => {
    const error = await refusal(organizationService.call({ username: 'alice', ...body }));
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(String(error.errorDetail)).toContain(field);
  });

  it('asks a user of any of its directories, and refuses a name two directories share', async () => {
    const created = (await organizationService.call({ username: 'alice', context: 'Org sign in' })) as {
      body: { auth_request: string };
    };
    await scene.organization.client.call('DELETE', `/service/v3/auths/${created.body.auth_request}`, {
      subject: `svc:${organizationService.id}`,
    });
    // A second directory of the same organization gets an alice of its own.
    const otherDirectory = await createDirectory(scene.organization);
    await scene.organization.client.call('POST', '/directory/v3/devices', {
      subject: `dir:${otherDirectory}`,
      body: { identifier: 'alice' },
    });
    const ambiguous = await refusal(organizationService.call({ username: 'alice' }));
    expect({ status: ambiguous.status, code: ambiguous.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(String(ambiguous.errorDetail)).toMatch(/user_push_id/);
  });
});

describe('who may ask', () => {
  it('a service only for itself: another service of the directory cannot act for it', async () => {
    const { serviceKey } = plain;
    const impostor = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `svc:${plain.serviceId}`,
      privateKeyPem: serviceKey.privatePem,
    });
    expect(
      await refusedWith(
        impostor.call('POST', '/service/v3/auths', {
          subject: `svc:${scene.serviceId}`,
          body: { username: 'alice' },
        }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
  });
});
