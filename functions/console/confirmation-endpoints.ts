import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { passkeyOrigin } from '#shared/http/event';
import { consoleSignInBody } from '#shared/http/schemas/console';
import { confirm, confirmationOptions } from '#shared/use-cases/console-confirmation';
import { actingSession } from '#functions/console/required-session';

/** The admin's passkey again, before a change that needs it (docs/console.md#confirming-with-the-passkey). */
export const confirmationEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'POST',
    path: '/confirmation/options',
    needs: 'session',
    schema: undefined,
    handle: async ({ event, session, now }) => ({
      status: 200,
      body: await confirmationOptions(actingSession(session), passkeyOrigin(event), now),
    }),
  }),
  endpoint({
    method: 'POST',
    path: '/confirmation',
    needs: 'session',
    schema: consoleSignInBody,
    handle: async ({ event, body, session, token, now }) => {
      await confirm(
        actingSession(session),
        token as string,
        body.assertion as AuthenticationResponseJSON,
        passkeyOrigin(event),
        now,
      );
      return { status: 204 };
    },
  }),
];
