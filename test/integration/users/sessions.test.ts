import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusedWith } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  alice = await scene.linkDevice('alice');
});
afterAll(async () => {
  await runtime?.stop();
});

interface SessionItem {
  service_id: string;
  service_name: string;
  service_icon: string;
  auth_request: string | null;
  date_created: string;
}

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

async function directorySessions(identifier: string): Promise<SessionItem[]> {
  return (
    await scene.organization.client.call<SessionItem[]>('POST', '/directory/v3/sessions/list', {
      ...asDirectory(),
      body: { identifier },
    })
  ).body as SessionItem[];
}

async function startSession(authRequest?: string): Promise<void> {
  const started = await scene.service.call('POST', '/service/v3/sessions', {
    body: { username: 'alice', ...(authRequest ? { auth_request: authRequest } : {}) },
  });
  expect(started.status).toBe(204);
}

describe('sessions', () => {
  it('started by the service show in the directory and on the device; ending them removes them', async () => {
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await alice.pending();
    await alice.answer(pending as NonNullable<typeof pending>, { approve: true });
    await startSession(created.auth_request);

    const [session] = await directorySessions('alice');
    expect(session).toMatchObject({ service_id: scene.serviceId, auth_request: created.auth_request });
    expect(Date.parse(session?.date_created ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(session?.service_icon).toMatch(/^https?:\/\//);
    expect(await alice.sessions()).toEqual([session]);

    const ended = await scene.service.call('DELETE', '/service/v3/sessions', { body: { username: 'alice' } });
    expect(ended.status).toBe(204);
    expect(await directorySessions('alice')).toEqual([]);
    // Ending a session that is not there is not an error.
    expect(
      (await scene.service.call('DELETE', '/service/v3/sessions', { body: { username: 'alice' } })).status,
    ).toBe(204);
  });

  it('ended by the user on the device are gone; ending one again is 404', async () => {
    await startSession();
    await alice.logout(scene.serviceId);
    expect(await directorySessions('alice')).toEqual([]);
    expect(await refusedWith(alice.logout(scene.serviceId))).toEqual({ status: 404, code: 'HTTP-404' });
  });

  it('all end at once through the directory', async () => {
    await startSession();
    expect(await directorySessions('alice')).toHaveLength(1);
    await scene.organization.client.call('DELETE', '/directory/v3/sessions', {
      ...asDirectory(),
      body: { identifier: 'alice' },
    });
    expect(await directorySessions('alice')).toEqual([]);
  });

  it('are 404 for a user the directory does not have', async () => {
    expect(
      await refusedWith(
        scene.organization.client.call('POST', '/directory/v3/sessions/list', {
          ...asDirectory(),
          body: { identifier: 'nobody' },
        }),
      ),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    expect(
      await refusedWith(
        scene.organization.client.call('DELETE', '/directory/v3/sessions', {
          ...asDirectory(),
          body: { identifier: 'nobody' },
        }),
      ),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    expect(
      await refusedWith(scene.service.call('POST', '/service/v3/sessions', { body: { username: 'nobody' } })),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    for (const method of ['POST', 'DELETE']) {
      expect(
        await refusedWith(scene.service.call(method, '/service/v3/sessions', { body: { username: null } })),
      ).toEqual({ status: 404, code: 'HTTP-404' });
    }
    expect(
      await refusedWith(
        scene.service.call('POST', '/service/v3/sessions', {
          body: { username: 'alice', auth_request: 'not-a-uuid' },
        }),
      ),
    ).toEqual({ status: 400, code: 'ARG-001' });
  });
});
