import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import type { SignedIn } from '#test/integration/console/console-client';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { denialReasons } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';

/**
 * A device's last answer on the console's user page (docs/console.md#users), over real HTTP against the local
 * runtime: noted with the answer itself, as much as the service can see of it (a sealed approval and a sealed
 * denial alike; a denial in the clear or as fraud; wrong number-matching codes), with the service it answered.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let helpdesk: SignedIn;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
  helpdesk = await client.signedIn('helpdesk', scene.organization.id);
}, 60_000);
afterAll(() => runtime?.stop());

interface LastAnswer {
  at: string;
  outcome: string;
  fraud: boolean;
  auth_request_id: string;
  service_id: string;
  service_name: string | null;
}

/** Each device's last answer as helpdesk reads the user, by device id. */
async function lastAnswers(identifier: string): Promise<Record<string, LastAnswer | null>> {
  const user = await client.call('GET', `/directories/${scene.directoryId}/users/${identifier}`, {
    session: helpdesk,
  });
  expect(user.status).toBe(200);
  const devices = user.body?.devices as { id: string; last_answer: LastAnswer | null }[];
  return Object.fromEntries(devices.map((device) => [device.id, device.last_answer]));
}

async function pendingOf(device: Authenticator) {
  const [pending] = await device.pending();
  return pending as NonNullable<typeof pending>;
}

const serviceName = async () =>
  (
    await scene.organization.client.call<{ id: string; name: string }[]>(
      'POST',
      '/directory/v3/services/list',
      {
        subject: `dir:${scene.directoryId}`,
        body: { service_ids: [scene.serviceId] },
      },
    )
  ).body?.[0]?.name;

describe('a device’s last answer in the console', () => {
  it('is noted with each answer, for the device that gave it, as the service saw it', async () => {
    const phone = await scene.linkDevice('ada');
    const tablet = await scene.linkDevice('ada');
    expect(await lastAnswers('ada')).toEqual({ [phone.state.deviceId]: null, [tablet.state.deviceId]: null });

    const approved = await scene.ask({ username: 'ada' });
    const before = Date.now() - 1000;
    await phone.answer(await pendingOf(phone), { approve: true });
    const first = await lastAnswers('ada');
    expect(first[tablet.state.deviceId]).toBeNull();
    expect(first[phone.state.deviceId]).toEqual({
      at: expect.any(String),
      // Sealed to the application: an approval reads as a sealed denial would.
      outcome: 'answered',
      fraud: false,
      auth_request_id: approved.auth_request,
      service_id: scene.serviceId,
      service_name: await serviceName(),
    });
    expect(Date.parse(first[phone.state.deviceId]?.at ?? '')).toBeGreaterThanOrEqual(before);

    // Wrong codes end a request with number matching: the device's last answer says so.
    const guessed = await scene.ask({ username: 'ada', number_matching: true });
    const pending = await pendingOf(phone);
    const code = Number((guessed as { number_match_code?: string }).number_match_code);
    for (const step of [1, 2, 3])
      await refusal(
        phone.answer(pending, {
          approve: true,
          numberMatchCode: String((code + step) % 1000).padStart(3, '0'),
        }),
      );
    const second = await lastAnswers('ada');
    expect(second[phone.state.deviceId]).toMatchObject({
      outcome: 'failed',
      auth_request_id: guessed.auth_request,
    });

    // A denial said in the clear, without the code, is the tablet's; the phone keeps its own.
    const cleared = await scene.ask({
      username: 'ada',
      number_matching: true,
      denial_reasons: denialReasons,
    });
    await tablet.answer(await pendingOf(tablet), { approve: false, denialReason: 'LATER' });
    const third = await lastAnswers('ada');
    expect(third[tablet.state.deviceId]).toMatchObject({
      outcome: 'denied',
      fraud: false,
      auth_request_id: cleared.auth_request,
    });
    expect(third[phone.state.deviceId]).toEqual(second[phone.state.deviceId]);

    // A sealed denial the device reports as fraud.
    const fraud = await scene.ask({ username: 'ada', denial_reasons: denialReasons });
    await phone.answer(await pendingOf(phone), { approve: false, denialReason: 'NOTME' });
    expect((await lastAnswers('ada'))[phone.state.deviceId]).toMatchObject({
      outcome: 'denied',
      fraud: true,
      auth_request_id: fraud.auth_request,
    });
  });

  it('is not shown to the application: its device list keeps the fields it had', async () => {
    const phone = await scene.linkDevice('ben');
    await scene.ask({ username: 'ben' });
    await phone.answer(await pendingOf(phone), { approve: true });
    expect((await lastAnswers('ben'))[phone.state.deviceId]).not.toBeNull();
    const listed = await scene.organization.client.call<Record<string, unknown>[]>(
      'POST',
      '/directory/v3/devices/list',
      { subject: `dir:${scene.directoryId}`, body: { identifier: 'ben' } },
    );
    expect(Object.keys(listed.body?.[0] ?? {}).sort()).toEqual([
      'created',
      'id',
      'name',
      'status',
      'type',
      'updated',
    ]);
    // The user is free again after the answer, as before: the slot went with it.
    expect((await scene.ask({ username: 'ben' })).auth_request).toMatch(/^[\da-f-]{36}$/);
  });

  it('frees the user’s slot when the device that answered was unlinked meanwhile', async () => {
    const phone = await scene.linkDevice('cy');
    const tablet = await scene.linkDevice('cy');
    const asked = await scene.ask({ username: 'cy' });
    expect((await scene.unlinkDevice('cy', phone.state.deviceId)).status).toBe(204);
    // The answer as it lands after the unlink: the store's own write, as the device's call made it before.
    const { answerWithSlot } = await import('#shared/store/auth-requests');
    const now = new Date();
    const recorded = await answerWithSlot(
      { user: { directoryId: scene.directoryId, identifier: 'cy' }, serviceId: scene.serviceId },
      asked.auth_request,
      {
        deviceId: phone.state.deviceId,
        authJwe: 'sealed',
        auth: null,
        authV1: null,
        answeredAt: now.toISOString(),
      },
      Math.floor(now.getTime() / 1000),
    );
    expect(recorded).toBe(true);
    expect((await scene.read(asked.auth_request)).status).toBe(200);
    // The slot, which is what devices list, is free: the user's other device no longer shows the request.
    expect(await tablet.pending()).toEqual([]);
  });
});
