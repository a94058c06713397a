import { randomBytes } from 'node:crypto';
import { type ConsoleRole, roleFitsOrganization } from '#shared/domain/console-admin';
import { consoleInviteSeconds } from '#shared/domain/console-session';
import { ApiError, invalidArgument } from '#shared/errors';
import { putInvite } from '#shared/store/console-ceremonies';
import { getOrganization } from '#shared/store/organizations';
import { epochSeconds } from '#shared/time';

export interface ConsoleInvite {
  /** The enrolment page with the token in its fragment, which browsers never send to a server or put in a Referer. */
  readonly url: string;
  /** ISO 8601 UTC. */
  readonly expiresAt: string;
}

/**
 * An invite to enrol in the console as `role` of `organizationId` (null: the deployment's operator): a random 32-byte
 * token, kept only as its SHA-256, good for one enrolment within 30 minutes. The URL is shown once and never again.
 */
export async function createConsoleInvite(
  input: {
    readonly organizationId: string | null;
    readonly role: ConsoleRole;
    /** `console:<admin>` or `admin-cli:<account>`. */
    readonly invitedBy: string;
    /** The API's public base URL. */
    readonly baseUrl: string;
  },
  now: Date,
): Promise<ConsoleInvite> {
  if (!roleFitsOrganization(input.role, input.organizationId)) {
    throw invalidArgument(
      input.role === 'operator'
        ? 'role: the operator belongs to no organization'
        : `role: an ${input.role} belongs to an organization`,
    );
  }
  if (input.organizationId !== null && !(await getOrganization(input.organizationId))) {
    throw new ApiError('CON-004', `No organization ${input.organizationId}`);
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = epochSeconds(now) + consoleInviteSeconds;
  await putInvite(token, {
    organizationId: input.organizationId,
    role: input.role,
    invitedBy: input.invitedBy,
    expiresAt,
  });
  return {
    url: `${input.baseUrl.replace(/\/+$/, '')}/console/#invite=${token}`,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
  };
}
