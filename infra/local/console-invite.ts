import { browserOrigin } from '#shared/client/browser-origin';
import type { ConsoleInvite } from '#shared/use-cases/console-invites';

/**
 * A one-time owner invite to the console for the demo organization, which `npm start` prints: the use case of
 * `npm run admin -- console invite --org <id> --role owner`, at the address where a browser on this machine opens the
 * runtime (`localhost`, which passkeys are bound to). No operator ran a command, so no operator's action is recorded;
 * the enrolment it leads to is. Imported after the runtime set the environment.
 */
export async function demoOwnerInvite(baseUrl: string, organizationId: string): Promise<ConsoleInvite> {
  const { createConsoleInvite } = await import('#shared/use-cases/console-invites');
  return createConsoleInvite(
    { organizationId, role: 'owner', invitedBy: 'admin-cli:npm-start', baseUrl: browserOrigin(baseUrl) },
    new Date(),
  );
}
