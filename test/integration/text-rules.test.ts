import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal, uniqueName } from '#test/support/tree';

// Identifiers and names must be well-formed Unicode; what a person reads on a device prompt must look like what it
// is; URLs must be the URL that was given, without control characters the URL parser would drop.

let runtime: TestRuntime;
let scene: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  await scene.linkDevice('alice');
});
afterAll(async () => {
  await runtime?.stop();
});

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

async function refused(call: Promise<unknown>) {
  const error = await refusal(call);
  return { status: error.status, code: error.errorCode, detail: String(error.errorDetail) };
}

describe('identifiers that are not well-formed Unicode', () => {
  it('two users told apart only by lone surrogates are refused, not merged into one', async () => {
    for (const identifier of ['sur\ud800', 'sur\udc00']) {
      expect(
        await refused(
          scene.organization.client.call('POST', '/directory/v3/devices', {
            ...asDirectory(),
            body: { identifier },
          }),
        ),
      ).toEqual({
        status: 400,
        code: 'ARG-001',
        detail: 'identifier: must be well-formed Unicode text (it holds a lone surrogate)',
      });
    }
    const { body } = await scene.organization.client.call<unknown[]>('POST', '/directory/v3/devices/list', {
      ...asDirectory(),
      body: { identifier: 'sur\ufffd' },
    });
    expect(body).toEqual([]);
  });

  it.each([
    ['a username', { username: 'alice\ud800' }, 'username'],
    [
      'a nested value',
      { username: 'alice', denial_reasons: [{ id: 'A', reason: 'x\udfff', fraud: true }] },
      'denial_reasons.0.reason',
    ],
    ['a key of the body', { username: 'alice', ['\ud800']: 1 }, '["\\ud800"]'],
    [
      'a policy fence name',
      {
        username: 'alice',
        policy: {
          minimum_requirements: [],
          factors: [
            {
              factor: 'geofence',
              requirement: 'forced requirement',
              priority: 1,
              attributes: { locations: [{ name: 'Office\ud800', latitude: 1, longitude: 2, radius: 100 }] },
            },
          ],
        },
      },
      'policy.factors.0.attributes.locations.0.name',
    ],
  ])('in %s is ARG-001 naming the field', async (_, body, path) => {
    expect(await refused(scene.ask(body))).toEqual({
      status: 400,
      code: 'ARG-001',
      detail: `${path}: must be well-formed Unicode text (it holds a lone surrogate)`,
    });
  });
});

describe('text a person reads on a device prompt', () => {
  it.each([
    ['a zero-width space', 'Svc\u200bA', 'U+200B at character 4'],
    ['a zero-width joiner', 'Svc\u200dA', 'U+200D at character 4'],
    ['a right-to-left override', 'Svc\u202eA', 'U+202E at character 4'],
    ['a line break', 'Svc\nA', 'U+000A at character 4'],
    ['a soft hyphen', 'Svc\u00adA', 'U+00AD at character 4'],
  ])('refuses a service name with %s (ARG-001)', async (_, name, where) => {
    expect(
      await refused(
        scene.organization.client.call('POST', '/directory/v3/services', {
          ...asDirectory(),
          body: { name },
        }),
      ),
    ).toEqual({
      status: 400,
      code: 'ARG-001',
      detail: `name: must not contain control, bidirectional or invisible characters (${where})`,
    });
  });

  it('refuses hidden characters in a directory name, a service rename and a device name', async () => {
    const cases = [
      scene.organization.client.call('POST', '/organization/v3/directories', {
        body: { name: 'Dir\u2066x' },
      }),
      scene.organization.client.call('PATCH', '/directory/v3/services', {
        ...asDirectory(),
        body: { service_id: scene.serviceId, name: 'Ser\ufeffvice' },
      }),
    ];
    for (const call of cases) expect(await refused(call)).toMatchObject({ status: 400, code: 'ARG-001' });
    const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
      ...asDirectory(),
      body: { identifier: 'named' },
    });
    const link = await fetch(`${runtime.baseUrl}/device/v3/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sdk_key: scene.sdkKey,
        code: started.body?.code,
        public_key: 'x',
        name: 'Phone\u200b',
      }),
    });
    expect(link.status).toBe(400);
    expect(await link.json()).toMatchObject({
      error_code: 'ARG-001',
      error_detail: expect.stringMatching(/^name: /),
    });
  });

  it.each([
    ['title', { title: 'Sign\u200bin' }],
    ['push_title', { push_title: 'Sign in\u202e' }],
    ['context', { context: 'From Firefox\u2069' }],
    ['push_body', { push_body: 'Approve\u200c?' }],
    [
      'a denial reason',
      {
        denial_reasons: [
          { id: 'A', reason: 'Not\u200bme', fraud: true },
          { id: 'B', reason: 'Later', fraud: false },
        ],
      },
    ],
  ])('refuses hidden characters in an auth request %s (ARG-001)', async (_, body) => {
    expect(await refused(scene.ask({ username: 'alice', ...body }))).toMatchObject({
      status: 400,
      code: 'ARG-001',
    });
  });

  it('keeps line breaks and tabs in context and push_body, and any visible script everywhere', async () => {
    const created = await scene.ask({
      username: 'alice',
      title: 'Überweisung bestätigen — 확인',
      context: 'Sign in from Firefox\r\non Linux\tat 10:00',
      push_body: 'Line one\nLine two',
    });
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
  });

  it('refuses a hidden character in a policy fence name with SVC-002', async () => {
    const policy = {
      type: 'METHOD_AMOUNT',
      amount: 1,
      fences: [{ type: 'TERRITORY', name: 'U\u200bS', country: 'US' }],
    };
    expect(
      await refused(
        scene.organization.client.call('PUT', '/directory/v3/service/policy', {
          ...asDirectory(),
          body: { service_id: scene.serviceId, policy },
        }),
      ),
    ).toMatchObject({
      status: 400,
      code: 'SVC-002',
      detail: expect.stringContaining('policy.fences[0].name'),
    });
  });
});

describe('URLs', () => {
  it.each([
    ['callback_url', 'https://example.com/hook\r\nX-Injected: 1'],
    ['callback_url', 'https://example.com/ho\nok'],
    ['icon', 'https://example.com/\ticon.png'],
    ['callback_url', 'https://exa mple.com/hook'],
    ['callback_url', 'https://example.com/\u200bhook'],
  ])('refuse %s %j with ARG-001', async (field, url) => {
    expect(
      await refused(
        scene.organization.client.call('POST', '/directory/v3/services', {
          ...asDirectory(),
          body: { name: uniqueName('Urls'), [field]: url },
        }),
      ),
    ).toEqual({
      status: 400,
      code: 'ARG-001',
      detail: expect.stringMatching(
        new RegExp(`^${field}: must not contain spaces, control characters or invisible characters`),
      ),
    });
  });

  it('refuse a directory webhook_url with a line break (ARG-001)', async () => {
    expect(
      await refused(
        scene.organization.client.call('PATCH', '/organization/v3/directories', {
          body: { directory_id: scene.directoryId, webhook_url: 'https://example.com/\nhook' },
        }),
      ),
    ).toMatchObject({ status: 400, code: 'ARG-001', detail: expect.stringMatching(/^webhook_url: /) });
  });
});
