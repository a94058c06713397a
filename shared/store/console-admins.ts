import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AdminAccount, ConsoleRole } from '#shared/domain/console-admin';
import {
  adminAccountKey,
  adminCredentialKey,
  adminListingKey,
  adminListingPartition,
  adminRemovalKey,
} from '#shared/store/console-keys';
import { batchGetAll, dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import { type TableWrite, writeTogether } from '#shared/store/write-together';

/**
 * Stores a new admin account: its passkeys' index first, each claimed with a conditional put so that no credential
 * ever names two admins, then the organization's listing and the account itself. A crash between leaves an index
 * entry naming an account that does not exist, which signs nobody in.
 */
export async function createAdminAccount(account: AdminAccount): Promise<boolean> {
  try {
    for (const passkey of account.passkeys) {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...adminCredentialKey(passkey.credentialId), adminId: account.adminId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    }
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...adminListingKey(account.organizationId, account.adminId),
        role: account.role,
        name: account.name,
      },
    }),
  );
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...adminAccountKey(account.adminId), ...account },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return true;
}

export async function getAdminAccount(adminId: string): Promise<AdminAccount | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: adminAccountKey(adminId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, ...account } = Item;
  return account as AdminAccount;
}

/** The admin a passkey belongs to, if any. */
export async function adminIdOfCredential(credentialId: string): Promise<string | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: adminCredentialKey(credentialId), ConsistentRead: true }),
  );
  return typeof Item?.adminId === 'string' ? Item.adminId : undefined;
}

/**
 * Moves a passkey's signature counter from the value an assertion was checked against to the assertion's, with a
 * conditional write: of two sign-ins with one assertion, only one moves it. False when it moved meanwhile.
 */
export async function advanceAdminPasskeyCounter(
  adminId: string,
  index: number,
  credentialId: string,
  from: number,
  to: number,
  signedInAt: string,
): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: adminAccountKey(adminId),
        // The last sign-in rides on the write every sign-in makes anyway, for the owners' list of admins.
        UpdateExpression: `SET passkeys[${index}].#counter = :to, lastSignInAt = :at`,
        ConditionExpression: `passkeys[${index}].credentialId = :id AND passkeys[${index}].#counter = :from`,
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':id': credentialId, ':from': from, ':to': to, ':at': signedInAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** The admins an organization has (null: the deployment's operators), their accounts read together. */
export async function listAdminAccounts(organizationId: string | null): Promise<AdminAccount[]> {
  const entries = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :admin)',
    ExpressionAttributeValues: { ':pk': adminListingPartition(organizationId), ':admin': 'ADMIN#' },
    ProjectionExpression: 'pk, sk',
  });
  const accounts = await batchGetAll(
    entries.map((entry) => adminAccountKey(String(entry.sk).slice('ADMIN#'.length))),
  );
  return accounts.map(({ pk: _pk, sk: _sk, ...account }) => account as unknown as AdminAccount);
}

/**
 * Writes that hold only while `ownerId` is still an owner: an update that sets the role it holds, conditioned on it
 * (a ConditionCheck is in no route's grant). Of two owners demoting or removing each other at once, one transaction
 * fails, so an organization never loses its last owner.
 */
const stillOwner = (account: Pick<AdminAccount, 'adminId' | 'organizationId'>): TableWrite => ({
  Update: {
    TableName: tableName,
    Key: adminListingKey(account.organizationId, account.adminId),
    UpdateExpression: 'SET #role = :owner',
    ConditionExpression: '#role = :owner',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':owner': 'owner' },
  },
});

/** What a change of an admin found: done, the admin changed meanwhile, or the other owner it relied on did. */
export type AdminChange = 'changed' | 'admin-changed' | 'owner-changed';

function changeOf(failed: readonly number[], ownerAt: number): AdminChange {
  if (failed.length === 0) return 'changed';
  return failed.includes(ownerAt) ? 'owner-changed' : 'admin-changed';
}

/**
 * Gives an admin another role, in the account and the organization's listing together, if it is still `from`;
 * `keepOwner`, when the admin was an owner, is another owner who must still be one.
 */
export async function changeAdminRole(
  account: AdminAccount,
  to: ConsoleRole,
  keepOwner?: Pick<AdminAccount, 'adminId' | 'organizationId'>,
): Promise<AdminChange> {
  const set = (key: ReturnType<typeof adminAccountKey>): TableWrite => ({
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET #role = :to',
      ConditionExpression: '#role = :from',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':to': to, ':from': account.role },
    },
  });
  const writes = [
    set(adminAccountKey(account.adminId)),
    set(adminListingKey(account.organizationId, account.adminId)),
    ...(keepOwner ? [stillOwner(keepOwner)] : []),
  ];
  return changeOf(await writeTogether(writes), 2);
}

/** A removal under way: the account is gone; what it left (its passkeys' index, and more) is still going. */
export interface AdminRemoval {
  readonly adminId: string;
  readonly organizationId: string | null;
  readonly credentialIds: readonly string[];
}

/** The removal of an account, as recorded while it is under way. */
export const removalOf = (account: AdminAccount): AdminRemoval => ({
  adminId: account.adminId,
  organizationId: account.organizationId,
  credentialIds: account.passkeys.map((passkey) => passkey.credentialId),
});

/**
 * Removes an admin: the account and its listing (if its role is still the one read), and in their place a record of
 * the removal, all together. From then on the admin's passkeys sign nobody in (their index names no account); the
 * caller then takes away what the account left and ends with `finishAdminRemoval`. A crash before that leaves the
 * record, by which a retry of the removal finds the admin and finishes.
 */
export async function removeAdminAccount(
  account: AdminAccount,
  keepOwner?: Pick<AdminAccount, 'adminId' | 'organizationId'>,
): Promise<AdminChange> {
  const writes: TableWrite[] = [
    {
      Delete: {
        TableName: tableName,
        Key: adminAccountKey(account.adminId),
        ConditionExpression: '#role = :role',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': account.role },
      },
    },
    { Delete: { TableName: tableName, Key: adminListingKey(account.organizationId, account.adminId) } },
    { Put: { TableName: tableName, Item: { ...adminRemovalKey(account.adminId), ...removalOf(account) } } },
    ...(keepOwner ? [stillOwner(keepOwner)] : []),
  ];
  return changeOf(await writeTogether(writes), 3);
}

/** The removal of an admin that has not finished yet, if any. */
export async function getAdminRemoval(adminId: string): Promise<AdminRemoval | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: adminRemovalKey(adminId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, ...removal } = Item;
  return removal as AdminRemoval;
}

/** The last of a removal: the passkeys' index, then the record of the removal, which a retry would have gone by. */
export async function finishAdminRemoval(removal: AdminRemoval): Promise<void> {
  for (const credentialId of removal.credentialIds) {
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: adminCredentialKey(credentialId) }));
  }
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: adminRemovalKey(removal.adminId) }));
}
