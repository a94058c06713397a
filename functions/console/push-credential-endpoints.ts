import type * as v from 'valibot';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { InvalidApnsCredentialsError } from '#shared/domain/apns-credentials';
import type { ConsoleSession } from '#shared/domain/console-session';
import { invalidArgument } from '#shared/errors';
import {
  consoleApnsCertificateBody,
  consoleApnsTokenKeyBody,
  consoleDirectorySettingsBody,
  consoleFcmBody,
} from '#shared/http/schemas/console-push';
import { consoleDirectoryOrganization } from '#shared/use-cases/console-scope';
import { describeDirectoryPush, removeApnsTokenKey, setApnsTokenKey } from '#shared/use-cases/directory-push';
import { directorySettings, updateDirectorySettings } from '#shared/use-cases/directory-settings';
import { type DirectoryUpdate, updateDirectory } from '#shared/use-cases/update-directory';
import { actingSession } from '#functions/console/required-session';

/**
 * A directory's push credentials in the console (docs/console.md#push-credentials): the .p12 and the FCM service
 * account through the signed API's directory update, so the same checks and sealing hold; the operator's APNs token
 * key, rate limit and fraud lock through the admin CLI's use cases. Answers show what each credential pushes to,
 * never a key.
 */
export const pushCredentialEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/directories/{id}/push',
    needs: 'read',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const admin = actingSession(session);
      const directoryId = parameters.id ?? '';
      await consoleDirectoryOrganization(admin, directoryId);
      return { status: 200, body: await pushView(directoryId) };
    },
  }),
  ...directoryUpdates('apns-certificate', consoleApnsCertificateBody, (body) => ({ iosP12: body.p12 }), {
    iosP12: null,
  }),
  ...directoryUpdates('fcm', consoleFcmBody, (body) => ({ androidKey: body.service_account }), {
    androidKey: null,
  }),
  endpoint({
    method: 'PUT',
    path: '/directories/{id}/push/apns-token-key',
    confirmed: true,
    needs: 'deployment',
    schema: consoleApnsTokenKeyBody,
    handle: async ({ session, parameters, body }) =>
      changed(actingSession(session), parameters.id ?? '', async (directoryId) => {
        try {
          await setApnsTokenKey(directoryId, await currentHashKey(), {
            keyPem: body.key_pem,
            keyId: body.key_id,
            teamId: body.team_id,
            topic: body.topic,
          });
        } catch (error) {
          if (error instanceof InvalidApnsCredentialsError) throw invalidArgument(error.message, error);
          throw error;
        }
      }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/directories/{id}/push/apns-token-key',
    confirmed: true,
    needs: 'deployment',
    schema: undefined,
    handle: async ({ session, parameters }) =>
      changed(actingSession(session), parameters.id ?? '', async (directoryId) => {
        await removeApnsTokenKey(directoryId, await currentHashKey());
      }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/directories/{id}/settings',
    needs: 'deployment',
    schema: consoleDirectorySettingsBody,
    handle: async ({ session, parameters, body }) => {
      const admin = actingSession(session);
      return changed(admin, parameters.id ?? '', async (directoryId) => {
        const { rate_limit: rateLimit, fraud_lock_seconds: fraudLock } = body;
        await updateDirectorySettings(
          directoryId,
          {
            ...(rateLimit ? { rateLimit: `${rateLimit.count}/${rateLimit.window_seconds}` } : {}),
            ...(fraudLock === undefined ? {} : { fraudLock: fraudLock === null ? 'off' : String(fraudLock) }),
          },
          { console: admin },
        );
      });
    },
  }),
];

/** PUT and DELETE of a push credential the signed API's directory update takes (`ios_p12`, `android_key`). */
function directoryUpdates<S extends v.GenericSchema>(
  name: string,
  schema: S,
  put: (body: v.InferOutput<S>) => DirectoryUpdate,
  remove: DirectoryUpdate,
): ConsoleEndpoint[] {
  const path = `/directories/{id}/push/${name}`;
  return [
    endpoint({
      method: 'PUT',
      path,
      confirmed: true,
      needs: 'directory-write',
      schema,
      handle: async ({ session, parameters, body }) =>
        changed(actingSession(session), parameters.id ?? '', (directoryId, organizationId) =>
          updateDirectory(organizationId, directoryId, put(body)),
        ),
    }),
    endpoint({
      method: 'DELETE',
      path,
      confirmed: true,
      needs: 'directory-write',
      schema: undefined,
      handle: async ({ session, parameters }) =>
        changed(actingSession(session), parameters.id ?? '', (directoryId, organizationId) =>
          updateDirectory(organizationId, directoryId, remove),
        ),
    }),
  ];
}

/** Makes a change to a directory the admin may touch, and answers with its push view, naming it for the audit. */
async function changed(
  admin: ConsoleSession,
  directoryId: string,
  change: (directoryId: string, organizationId: string) => Promise<void>,
) {
  const organizationId = await consoleDirectoryOrganization(admin, directoryId);
  await change(directoryId, organizationId);
  return {
    status: 200,
    body: await pushView(directoryId),
    targetId: directoryId,
    touched: { organizationId, directoryId },
  };
}

/** What the console shows of a directory's push: what each credential pushes to, and its rate limit and fraud lock. */
async function pushView(directoryId: string) {
  const [push, settings] = await Promise.all([
    describeDirectoryPush(directoryId, await currentHashKey()),
    directorySettings(directoryId),
  ]);
  return {
    ...push,
    rate_limit: { count: settings.rateLimit.count, window_seconds: settings.rateLimit.windowSeconds },
    fraud_lock_seconds: settings.fraudLockSeconds,
  };
}
