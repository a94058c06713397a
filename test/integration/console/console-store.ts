import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsoleRole } from '#shared/domain/console-admin';
import { sessionKey } from '#shared/store/console-keys';
import { dynamo, tableName } from '#shared/store/dynamo';
import { createConsoleInvite } from '#shared/use-cases/console-invites';
import { createOrganization } from '#shared/use-cases/create-organization';
import { createDirectory } from '#shared/use-cases/directories';

/** What the console's tests do to the store directly, as the admin CLI or time would; imported once the runtime runs. */
export function invite(organizationId: string | null, role: ConsoleRole, baseUrl: string, now = new Date()) {
  return createConsoleInvite({ organizationId, role, invitedBy: 'admin-cli:test', baseUrl }, now);
}

export const organization = (name: string) => createOrganization({ name });

export const directory = (organizationId: string, name: string) =>
  createDirectory(organizationId, name, new Date());

/**
 * TESTS ONLY. Stands in for the sign-in approval (the admin approving on their own linked authenticator, which moves
 * a session from `passkey` to `approved`; console-approval.test.ts goes through it whole): it writes the stage in the
 * store, so that the tests of the console's actions can act as roles that must be approved. The console itself has no
 * way to do this.
 */
export async function approveSessionForTest(cookie: string): Promise<void> {
  const token = cookie.split('=')[1] as string;
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: sessionKey(token),
      UpdateExpression: 'SET stage = :approved',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':approved': 'approved' },
    }),
  );
}

/**
 * Moves a session's sign-in, its last passkey and its last request into the past, as that much time passing would
 * (the passkey as long ago as the sign-in, unless said).
 */
export async function ageSession(
  cookie: string,
  age: {
    readonly idleSeconds: number;
    readonly sinceSignInSeconds: number;
    readonly sincePasskeySeconds?: number;
  },
): Promise<void> {
  const token = cookie.split('=')[1] as string;
  const now = Math.floor(Date.now() / 1000);
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: sessionKey(token),
      UpdateExpression: 'SET lastSeenAt = :seen, createdAt = :created, confirmedAt = :confirmed',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':seen': now - age.idleSeconds,
        ':created': now - age.sinceSignInSeconds,
        ':confirmed': now - (age.sincePasskeySeconds ?? age.sinceSignInSeconds),
      },
    }),
  );
}

/** The console's records in an organization's audit trail (the deployment's for `deployment`) since `since`. */
export async function consoleRecords(organizationId: string, since: Date) {
  const { queryAuditRecords } = await import('#shared/store/audit-records');
  const { records } = await queryAuditRecords({
    organizationId,
    since: since.toISOString(),
    until: new Date(Date.now() + 60_000).toISOString(),
    limit: 1000,
    maxPages: 10,
  });
  return records.filter((record) => record.actor_type === 'console');
}
