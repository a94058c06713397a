import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

export interface PushScene {
  readonly runtime: TestRuntime;
  readonly scene: AuthScene;
  /** The first linked device of `user`. */
  readonly phone: Authenticator;
  /** PATCH /organization/v3/directories on the scene's directory, e.g. its push credentials. */
  patchDirectory(body: Record<string, unknown>): ReturnType<AuthScene['service']['call']>;
  /** DELETE /service/v3/auths/{id}, as the scene's service. */
  cancel(authRequest: string): Promise<unknown>;
}

/** A push worker that gives up quickly (1 s backoff, 3 attempts, 1 s timeout), with a real VAPID contact. */
export const quickPushWorker = {
  PUSH_RETRY_BASE_SECONDS: '1',
  PUSH_MAX_ATTEMPTS: '3',
  PUSH_TIMEOUT_MS: '1000',
  PUSH_VAPID_SUBJECT: 'mailto:security@example.org',
} as const;

/**
 * The local runtime with a push worker that gives up quickly (1 s backoff, 3 attempts, 1 s timeout) and the settings
 * given (where the push services are), a scene, and one linked device for `user`.
 */
export async function startPushScene(settings: Record<string, string>, user: string): Promise<PushScene> {
  Object.assign(process.env, { ...quickPushWorker, ...settings });
  const runtime = await startTestRuntime();
  const scene = await newAuthScene(runtime);
  const phone = await scene.linkDevice(user);
  return {
    runtime,
    scene,
    phone,
    patchDirectory: (body) =>
      scene.organization.client.call('PATCH', '/organization/v3/directories', {
        body: { directory_id: scene.directoryId, ...body },
      }),
    cancel: (authRequest) =>
      scene.service.call('DELETE', `/service/v3/auths/${authRequest}`, { subject: `svc:${scene.serviceId}` }),
  };
}
