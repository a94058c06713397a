import { callerAddress } from '#shared/http/caller-address';
import { clearedSessionCookie, type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { publicBaseUrl } from '#shared/http/event';
import {
  adminAuthenticator,
  linkAdminAuthenticator,
  readApproval,
  startApproval,
} from '#shared/use-cases/console-approvals';

/**
 * The sign-in's approval on the admin's own authenticator, and the link of that authenticator
 * (docs/console.md#approval). Each needs a session at any stage: they are how a session reaches `approved`.
 */
export const approvalEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/authenticator',
    needs: 'session',
    schema: undefined,
    handle: async ({ session, now }) => ({
      status: 200,
      body: await adminAuthenticator(required(session), now),
    }),
  }),
  endpoint({
    method: 'POST',
    path: '/authenticator/link',
    needs: 'session',
    schema: undefined,
    handle: async ({ event, session, now }) => ({
      status: 201,
      body: await linkAdminAuthenticator(required(session), publicBaseUrl(event), now),
    }),
  }),
  endpoint({
    method: 'POST',
    path: '/sign-in/approval',
    needs: 'session',
    schema: undefined,
    handle: async ({ event, session, token, now }) => {
      const started = await startApproval(required(session), required(token), callerAddress(event), now);
      return { status: 201, body: started, targetId: started.auth_request };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/sign-in/approval',
    needs: 'session',
    schema: undefined,
    handle: async ({ session, token, now }) => {
      const { concluded, authRequestId, ...reading } = await readApproval(
        required(session),
        required(token),
        now,
      );
      return {
        status: 200,
        body: reading,
        ...(reading.stage === 'ended' ? { cookies: [clearedSessionCookie] } : {}),
        ...(concluded ? { changed: true } : {}),
        ...(authRequestId ? { targetId: authRequestId } : {}),
      };
    },
  }),
];

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('The console pipeline gave a session endpoint no session');
  return value;
}
