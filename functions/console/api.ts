import * as v from 'valibot';
import { callerAddress } from '#shared/http/caller-address';
import {
  clearedSessionCookie,
  type ConsoleEndpoint,
  consoleHandler,
  endpoint,
  sessionCookie,
} from '#shared/http/console-handler';
import type { ConsoleSession } from '#shared/domain/console-session';
import { passkeyOrigin } from '#shared/http/event';
import {
  consoleEnrolmentBody,
  consoleEnrolmentOptionsBody,
  consoleSignInBody,
} from '#shared/http/schemas/console';
import { ApiError } from '#shared/errors';
import { consoleActions, mayPerform } from '#shared/domain/console-permissions';
import { adminEndpoints } from '#functions/console/admin-endpoints';
import { approvalEndpoints } from '#functions/console/approval-endpoints';
import { confirmationEndpoints } from '#functions/console/confirmation-endpoints';
import { healthEndpoints } from '#functions/console/health-endpoints';
import { deadLetterEndpoints } from '#functions/console/dead-letter-endpoints';
import { organizationEndpoints } from '#functions/console/organization-endpoints';
import { consoleDirectories, consoleDirectory } from '#shared/use-cases/console-directories';
import { enrol, enrolmentOptions, signInOptions } from '#shared/use-cases/console-passkeys';
import { signIn, signOut } from '#shared/use-cases/console-sessions';
import type { RegistrationResponseJSON, AuthenticationResponseJSON } from '@simplewebauthn/server';
import { directoryEndpoints } from '#functions/console/directory-endpoints';
import { keyEndpoints } from '#functions/console/key-endpoints';
import { pushCredentialEndpoints } from '#functions/console/push-credential-endpoints';
import { serviceEndpoints } from '#functions/console/service-endpoints';
import { userEndpoints } from '#functions/console/user-endpoints';

const uuid = v.pipe(v.string(), v.uuid());

/** The console's endpoints under /console/api (docs/console.md#endpoints). */
export const consoleEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'POST',
    path: '/enrolment/options',
    needs: 'signed-out',
    schema: consoleEnrolmentOptionsBody,
    handle: async ({ event, body, now }) => ({
      status: 200,
      body: await enrolmentOptions(body.invite, passkeyOrigin(event), now),
    }),
  }),
  endpoint({
    method: 'POST',
    path: '/enrolment',
    needs: 'signed-out',
    schema: consoleEnrolmentBody,
    handle: async ({ event, body, now }) => {
      const account = await enrol(
        {
          inviteToken: body.invite,
          name: body.name,
          registration: body.registration as RegistrationResponseJSON,
        },
        passkeyOrigin(event),
        now,
      );
      return {
        status: 201,
        body: { admin_id: account.adminId, role: account.role, organization_id: account.organizationId },
        actor: { admin: account },
        targetId: account.adminId,
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/sign-in/options',
    needs: 'signed-out',
    schema: undefined,
    handle: async ({ event, now }) => ({ status: 200, body: await signInOptions(passkeyOrigin(event), now) }),
  }),
  endpoint({
    method: 'POST',
    path: '/sign-in',
    needs: 'signed-out',
    schema: consoleSignInBody,
    handle: async ({ event, body, now }) => {
      const { token, session } = await signIn(
        body.assertion as AuthenticationResponseJSON,
        callerAddress(event),
        passkeyOrigin(event),
        now,
      );
      return {
        status: 200,
        body: sessionView(session),
        cookies: [sessionCookie(token)],
        actor: { admin: session, sessionId: session.sessionId },
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/sign-out',
    needs: 'session',
    schema: undefined,
    handle: async ({ token, session, now }) => {
      const cancelled = token ? await signOut(token, required(session), now) : undefined;
      return {
        status: 204,
        cookies: [clearedSessionCookie],
        ...(cancelled ? { targetId: cancelled } : {}),
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/session',
    needs: 'session',
    schema: undefined,
    handle: async ({ session }) => ({ status: 200, body: sessionView(required(session)) }),
  }),
  endpoint({
    method: 'GET',
    path: '/directories',
    needs: 'read',
    schema: undefined,
    handle: async ({ session }) => ({
      status: 200,
      body: { directories: await consoleDirectories(required(session)) },
    }),
  }),
  endpoint({
    method: 'GET',
    path: '/directories/{id}',
    needs: 'read',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const id = parameters.id ?? '';
      if (!v.is(uuid, id)) throw new ApiError('CON-004', 'No such directory');
      return { status: 200, body: await consoleDirectory(required(session), id) };
    },
  }),
  ...directoryEndpoints,
  ...serviceEndpoints,
  ...keyEndpoints,
  ...userEndpoints,
  ...approvalEndpoints,
  ...confirmationEndpoints,
  ...healthEndpoints,
  ...adminEndpoints,
  ...deadLetterEndpoints,
  ...organizationEndpoints,
  ...pushCredentialEndpoints,
];

/** Who is signed in, as the console's pages show it, with the CSRF token they send back on every change. */
function sessionView(session: ConsoleSession) {
  return {
    admin_id: session.adminId,
    name: session.name,
    role: session.role,
    organization_id: session.organizationId,
    stage: session.stage,
    csrf_token: session.csrfSecret,
    // The pages show only what the role may do; the pipeline still refuses the rest.
    may: consoleActions.filter((action) => mayPerform(session.role, action)),
  };
}

function required<T>(session: T | undefined): T {
  if (!session) throw new Error('The console pipeline gave a session endpoint no session');
  return session;
}

export const handler = consoleHandler(consoleEndpoints);
