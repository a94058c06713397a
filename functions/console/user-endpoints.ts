import * as v from 'valibot';
import type { ConsoleSession } from '#shared/domain/console-session';
import type { Service } from '#shared/domain/service';
import { type DeviceLastAnswer, DeviceStatus } from '#shared/domain/user';
import { clip, idEchoLength } from '#shared/echo';
import { ApiError } from '#shared/errors';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { publicBaseUrl } from '#shared/http/event';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { uuid } from '#shared/http/schemas/common';
import { consoleStartLinkBody } from '#shared/http/schemas/console-users';
import { identifier as identifierSchema } from '#shared/http/schemas/users';
import { getServiceHeads } from '#shared/store/service-heads';
import { getUser } from '#shared/store/users';
import { overrideDeviceConfirmation } from '#shared/use-cases/confirm-device-link';
import { consoleDirectoryOrganization } from '#shared/use-cases/console-scope';
import { liftFraudLock, listLockedUsers } from '#shared/use-cases/directory-settings';
import { defaultLinkTtlSeconds, listDevices, startDeviceLink, unlinkDevice } from '#shared/use-cases/devices';
import { listSessions } from '#shared/use-cases/sessions';
import { epochSeconds, isoSeconds } from '#shared/time';
import { getTotpState, removeTotp } from '#shared/use-cases/totp';
import { actingSession } from '#functions/console/required-session';

/** A directory user the admin may act for: their directory's organization and the user's key. */
interface ConsoleUser {
  readonly organizationId: string;
  readonly directoryId: string;
  readonly identifier: string;
}

const noUser = (identifier: string) => new ApiError('CON-004', `No user ${clip(identifier, idEchoLength)}`);

/**
 * The user a path names, in a directory the admin may touch; one the directory does not have is CON-004, as a
 * directory of another organization is. `mustExist: false` for starting a link, which creates the user, as the
 * signed API's does.
 */
async function consoleUser(
  session: ConsoleSession | undefined,
  parameters: Readonly<Record<string, string>>,
  mustExist = true,
): Promise<ConsoleUser> {
  const directoryId = parameters.id ?? '';
  const organizationId = await consoleDirectoryOrganization(actingSession(session), directoryId);
  const identifier = parameters.identifier ?? '';
  if (!v.is(identifierSchema, identifier)) throw noUser(identifier);
  if (mustExist && !(await getUser({ directoryId, identifier }))) throw noUser(identifier);
  return { organizationId, directoryId, identifier };
}

const noDevice = (deviceId: string) =>
  new ApiError('CON-004', `No device ${clip(deviceId, idEchoLength)} of this user`);

/** The user a path names and the device id it names, which must at least be a device id. */
async function consoleUserDevice(
  session: ConsoleSession | undefined,
  parameters: Readonly<Record<string, string>>,
): Promise<{ readonly user: ConsoleUser; readonly deviceId: string }> {
  const user = await consoleUser(session, parameters);
  const deviceId = parameters.deviceId ?? '';
  if (!v.is(uuid, deviceId)) throw noDevice(deviceId);
  return { user, deviceId };
}

const touched = (user: ConsoleUser, deviceId?: string) => ({
  organizationId: user.organizationId,
  directoryId: user.directoryId,
  user: user.identifier,
  ...(deviceId ? { deviceId } : {}),
});

/** Epoch seconds still to come as ISO 8601 UTC; null once past (or never set). */
const atSeconds = (seconds: number | undefined, now: Date) =>
  seconds !== undefined && seconds > epochSeconds(now) ? isoSeconds(new Date(seconds * 1000)) : null;

/** A device's last answer as helpdesk reads it: when, what the service could see of it, and for which service. */
function lastAnswerView(last: DeviceLastAnswer | undefined, services: ReadonlyMap<string, Service>) {
  if (!last) return null;
  return {
    at: last.at,
    outcome: last.outcome,
    fraud: last.fraud === true,
    auth_request_id: last.authRequestId,
    service_id: last.serviceId,
    // A service removed since keeps its id only.
    service_name: services.get(last.serviceId)?.name ?? null,
  };
}

const statusNames: Readonly<Record<number, string>> = {
  [DeviceStatus.linkPending]: 'link-pending',
  [DeviceStatus.linked]: 'linked',
  [DeviceStatus.unlinkPending]: 'unlink-pending',
};

/**
 * Helpdesk in the console (docs/console.md#users): look a directory user up, and act for them through the signed
 * API's own use cases: unlink a device, start a link, reset TOTP; and, as the admin CLI does, lift a fraud lock and
 * approve a device the user has no other device left to confirm.
 */
export const userEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/directories/{id}/users/{identifier}',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session, parameters, now }) => {
      const user = await consoleUser(session, parameters);
      const key = { directoryId: user.directoryId, identifier: user.identifier };
      const [stored, devices, sessions, totp, locks] = await Promise.all([
        getUser(key),
        listDevices(user.directoryId, user.identifier),
        listSessions(key, publicBaseUrl(event)),
        getTotpState(user.directoryId, user.identifier, now),
        listLockedUsers(user.directoryId, now),
      ]);
      const answeredServices = await getServiceHeads(
        (stored?.devices ?? []).flatMap((device) => (device.lastAnswer ? [device.lastAnswer.serviceId] : [])),
      );
      return {
        status: 200,
        body: {
          directory_id: user.directoryId,
          identifier: user.identifier,
          devices: devices.map((device) => {
            const entry = stored?.devices.find((one) => one.id === device.id);
            return {
              ...device,
              status_name: statusNames[device.status] ?? 'unknown',
              // Helpdesk must be able to say why a relinked phone gets no requests yet (the cooling-off), and which
              // device was linked but waits for a confirmation the user's lost phone cannot give.
              answers_from: atSeconds(entry?.answersFrom, now),
              waits_for_confirmation:
                device.status === DeviceStatus.linkPending && entry?.confirmation !== undefined,
              last_answer: lastAnswerView(entry?.lastAnswer, answeredServices),
            };
          }),
          sessions,
          totp,
          fraud_lock: locks.find((lock) => lock.identifier === user.identifier) ?? null,
        },
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/directories/{id}/users/{identifier}/devices/{deviceId}',
    confirmed: true,
    needs: 'user-helpdesk',
    schema: undefined,
    handle: async ({ session, parameters, now }) => {
      const { user, deviceId } = await consoleUserDevice(session, parameters);
      const known = (await listDevices(user.directoryId, user.identifier)).some(
        (device) => device.id === deviceId,
      );
      if (!known) throw noDevice(deviceId);
      await unlinkDevice(user.directoryId, user.identifier, deviceId, now);
      return { status: 204, targetId: deviceId, touched: touched(user, deviceId) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/directories/{id}/users/{identifier}/links',
    needs: 'user-helpdesk',
    schema: consoleStartLinkBody,
    handle: async ({ event, session, parameters, body, now }) => {
      const user = await consoleUser(session, parameters, false);
      const ttlSeconds = body.ttl ?? defaultLinkTtlSeconds;
      const link = await startDeviceLink(
        {
          organizationId: user.organizationId,
          directoryId: user.directoryId,
          identifier: user.identifier,
          ttlSeconds,
          // The completion webhook goes to the directory's URL, encrypted to the directory's own key, as for a link
          // the directory started; the console itself has no key to encrypt to.
          requester: `dir:${user.directoryId}`,
          identity: 'api',
          requesterKid: undefined,
        },
        now,
        publicBaseUrl(event),
      );
      return {
        status: 201,
        body: {
          ...link,
          // What the console shows the person: the web authenticator's page with the code, and until when it works.
          url: `${webAuthenticatorUrl(publicBaseUrl(event))}#code=${link.code}`,
          expires_at: isoSeconds(new Date((epochSeconds(now) + ttlSeconds) * 1000)),
        },
        targetId: link.device_id,
        touched: touched(user, link.device_id),
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/directories/{id}/users/{identifier}/fraud-lock',
    needs: 'user-helpdesk',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const user = await consoleUser(session, parameters);
      if (!(await liftFraudLock(user.directoryId, user.identifier)))
        throw new ApiError('CON-004', `The user ${clip(user.identifier, idEchoLength)} is not locked`);
      return { status: 204, touched: touched(user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/directories/{id}/users/{identifier}/devices/{deviceId}/confirm',
    confirmed: true,
    needs: 'user-helpdesk',
    schema: undefined,
    handle: async ({ session, parameters, now }) => {
      const { user, deviceId } = await consoleUserDevice(session, parameters);
      // The helpdesk vouches for the person, as the operator's `admin device confirm` does.
      const { outcome } = await overrideDeviceConfirmation(
        { directoryId: user.directoryId, identifier: user.identifier, deviceId },
        { console: actingSession(session) },
        now,
      );
      return {
        status: 200,
        body: { device_id: deviceId, outcome },
        targetId: outcome,
        touched: touched(user, deviceId),
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/directories/{id}/users/{identifier}/totp',
    confirmed: true,
    needs: 'user-helpdesk',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const user = await consoleUser(session, parameters);
      await removeTotp(user.directoryId, user.identifier);
      return { status: 204, touched: touched(user) };
    },
  }),
];
