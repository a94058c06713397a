import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AdminAccount } from '#shared/domain/console-admin';
import { adminAccountKey, adminCredentialKey, adminListingKey } from '#shared/store/console-keys';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';

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
): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: adminAccountKey(adminId),
        UpdateExpression: `SET passkeys[${index}].#counter = :to`,
        ConditionExpression: `passkeys[${index}].credentialId = :id AND passkeys[${index}].#counter = :from`,
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':id': credentialId, ':from': from, ':to': to },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
