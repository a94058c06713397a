import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig } from '#infra/local/engines';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { listDeadLetters, pushMessages } from '#shared/events/dead-letters';
import type { AuthScene } from '#test/support/auth-scene';
import { type FcmServer, startFcmServer } from '#test/support/fcm-server';
import { type PushScene, startPushScene } from '#test/support/push-scene';
import type { TestRuntime } from '#test/support/runtime';
import { runCli } from '#test/support/service-process';
import { refusal } from '#test/support/tree';
import { makeServiceAccount, type TestServiceAccount } from '#test/support/service-account';
import { until } from '#test/support/waiting';

let runtime: TestRuntime;
let scene: AuthScene;
let fcm: FcmServer;
let account: TestServiceAccount;
let phone: Authenticator;
let patchDirectory: PushScene['patchDirectory'];
let cancel: PushScene['cancel'];
const token = 'eY3x9n1RQd2:APA91bH-test_registration.token';

/** What `npm run admin -- directory push` prints of the scene's directory. */
async function adminShows(): Promise<string> {
  const run = await runCli('admin', [
    'directory',
    'push',
    '--directory',
    scene.directoryId,
    '--data-dir',
    runtime.runtime.dataDir,
  ]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return run.stdout;
}

async function directoryView(): Promise<Record<string, unknown>> {
  const { body } = await scene.organization.client.call<Record<string, unknown>[]>(
    'POST',
    '/organization/v3/directories/list',
    { body: { directory_ids: [scene.directoryId] } },
  );
  return body?.[0] ?? {};
}

beforeAll(async () => {
  account = makeServiceAccount('mfa-push-test');
  fcm = await startFcmServer({ account });
  ({ runtime, scene, phone, patchDirectory, cancel } = await startPushScene(
    {
      PUSH_FCM_URL: fcm.origin,
      PUSH_FCM_TOKEN_URL: fcm.tokenUrl,
    },
    'bob',
  ));
}, 60_000);
afterAll(async () => {
  await fcm?.close();
  await runtime?.stop();
});

describe("a directory's FCM credentials", () => {
  it('refuses an FCM token while the directory has no service account', async () => {
    expect(await refusal(phone.registerPush({ fcm: { token } }))).toMatchObject({
      status: 400,
      errorCode: 'ARG-001',
      message: expect.stringContaining('no FCM credentials'),
    });
  });

  it('takes a legacy server key as LaunchKey did and shows it as given, but refuses FCM tokens saying why', async () => {
    const legacy = 'AAAAx1y2z3:APA91bHlegacykey';
    expect((await patchDirectory({ android_key: legacy })).status).toBe(204);
    expect((await directoryView()).android_key).toBe(legacy);
    expect(await refusal(phone.registerPush({ fcm: { token } }))).toMatchObject({
      status: 400,
      errorCode: 'ARG-001',
      message: expect.stringContaining('its android_key is not a usable service-account file'),
    });
    expect(await adminShows()).toContain(
      'fcm: none, FCM pushes fail: android_key is not a Firebase service-account JSON file (Google retired the legacy FCM API',
    );
  });

  it('keeps a service account sealed and shows which one it is, never the key', async () => {
    expect((await patchDirectory({ android_key: account.json })).status).toBe(204);
    const view = await directoryView();
    expect(view.android_key).toBe(
      `service-account:${account.file.client_email}#${account.file.private_key_id?.slice(0, 8)}`,
    );
    const { getSealedPushCredentials } = await import('#shared/store/push-credentials');
    const stored = await getSealedPushCredentials(scene.directoryId);
    expect(stored.fcm).toMatch(/^[A-Za-z0-9_-]{100,}$/);
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(stored)).not.toContain(account.file.client_email);
  });
});

describe('pushing through FCM', () => {
  it('prompts with a high-priority notification that expires and collapses with the request, and takes it down with data only', async () => {
    await phone.registerPush({ fcm: { token } });
    expect((await phone.pushSettings()).channel).toBe('fcm');
    const created = await scene.ask({
      username: 'bob',
      push_title: 'Sign in?',
      push_body: 'From Lisbon',
      ttl: 120,
    });
    const id = created.auth_request;
    const prompt = await fcm.waitFor(
      (each) => each.message.data !== undefined && JSON.stringify(each.message).includes(id),
    );
    expect(prompt.project).toBe('mfa-push-test');
    expect(prompt.token).toBe(token);
    expect(prompt.body).toEqual({
      message: {
        token,
        data: { type: 'auth_request', auth_request: id },
        android: {
          priority: 'HIGH',
          ttl: expect.stringMatching(/^(1[01]\d|120)s$/),
          collapse_key: id,
          notification: { title: 'Sign in?', body: 'From Lisbon', tag: id },
        },
      },
    });
    await cancel(id);
    const ended = await fcm.waitFor(
      (each) => (each.message.data as Record<string, string> | undefined)?.type === 'auth_request_ended',
    );
    expect(ended.body).toEqual({
      message: {
        token,
        data: { type: 'auth_request_ended', auth_request: id },
        android: { priority: 'NORMAL', ttl: '600s', collapse_key: id },
      },
    });
    // One OAuth token served both pushes.
    expect(fcm.tokensIssued).toHaveLength(1);
    expect(fcm.rejected).toEqual([]);
  });

  it('removes the channel when FCM says the token is UNREGISTERED', async () => {
    const gone = 'gone-token:APA91b-unregistered';
    await phone.registerPush({ fcm: { token: gone } });
    fcm.answer(gone, 'UNREGISTERED');
    const created = await scene.ask({ username: 'bob' });
    await until(async () => ((await phone.pushSettings()).channel === null ? true : undefined));
    expect(fcm.received.filter((each) => each.token === gone)).toHaveLength(1);
    await cancel(created.auth_request);
  });

  it('sends nothing to FCM once android_key is not a service-account file, dead-lettering with the reason', async () => {
    await phone.registerPush({ fcm: { token } });
    expect((await patchDirectory({ android_key: 'Hello Android' })).status).toBe(204);
    expect((await directoryView()).android_key).toBe('Hello Android');
    const reason =
      'the directory has no FCM credentials: its android_key is not a Firebase service-account JSON file';
    expect(await adminShows()).toContain(`fcm: none, FCM pushes fail: android_key is not a Firebase`);
    const created = await scene.ask({ username: 'bob' });
    const sqs = new SQSClient(engineClientConfig(runtime.runtime.engines.sqsEndpoint));
    try {
      const letter = await until(async () =>
        (await listDeadLetters(sqs, runtime.runtime.pushQueues, 1000, pushMessages)).find(
          (each) => each.event?.authRequestId === created.auth_request,
        ),
      );
      expect(letter).toMatchObject({
        event: { kind: 'prompt', deviceId: phone.state.deviceId },
        attempts: 1,
        reason: expect.stringContaining(reason),
      });
      expect(letter.reason).not.toContain('Hello Android');
    } finally {
      sqs.destroy();
    }
    expect(
      fcm.received.filter((each) => JSON.stringify(each.message).includes(created.auth_request)),
    ).toEqual([]);
    // The device keeps its channel for when the directory has a service account again.
    expect((await phone.pushSettings()).channel).toBe('fcm');
    await cancel(created.auth_request);

    expect((await patchDirectory({ android_key: account.json })).status).toBe(204);
    const again = await scene.ask({ username: 'bob' });
    await fcm.waitFor((each) => JSON.stringify(each.message).includes(again.auth_request));
    await cancel(again.auth_request);
  }, 30_000);

  it('stops pushing when the service account is removed, and refuses new FCM tokens', async () => {
    expect((await patchDirectory({ android_key: null })).status).toBe(204);
    expect((await directoryView()).android_key).toBeNull();
    expect(await refusal(phone.registerPush({ fcm: { token } }))).toMatchObject({ errorCode: 'ARG-001' });
  });
});
