import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#shared/store/dynamo';
import { pushCredentialsKey } from '#shared/store/keys';
import { updateExpression } from '#shared/store/update-expression';

/** A directory's push credentials as stored: each one sealed under the key ring's hash key, never in the clear. */
export interface SealedPushCredentials {
  /** The certificate and key of the directory's `ios_p12`. */
  readonly apnsCertificate?: string;
  /** A token-signing key (.p8) an operator gave through the admin CLI. */
  readonly apnsToken?: string;
  /** The service account of the directory's `android_key`. */
  readonly fcm?: string;
  /**
   * Why the directory's `android_key` cannot push, in the clear: the reason never quotes the key, and the worker and
   * the admin CLI say it where an operator looks. Absent beside a service account.
   */
  readonly fcmUnusable?: string;
}

export type SealedPushCredentialChanges = {
  readonly [Name in keyof SealedPushCredentials]?: string | null;
};

const attributes: Readonly<Record<keyof SealedPushCredentials, string>> = {
  apnsCertificate: 'apnsCertificate',
  apnsToken: 'apnsToken',
  fcm: 'fcm',
  fcmUnusable: 'fcmUnusable',
};

export async function getSealedPushCredentials(directoryId: string): Promise<SealedPushCredentials> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: pushCredentialsKey(directoryId), ConsistentRead: true }),
  );
  return {
    ...(typeof Item?.apnsCertificate === 'string' ? { apnsCertificate: Item.apnsCertificate } : {}),
    ...(typeof Item?.apnsToken === 'string' ? { apnsToken: Item.apnsToken } : {}),
    ...(typeof Item?.fcm === 'string' ? { fcm: Item.fcm } : {}),
    ...(typeof Item?.fcmUnusable === 'string' ? { fcmUnusable: Item.fcmUnusable } : {}),
  };
}

/** Sets the present credentials and removes the null ones; the item is made on the first. */
export async function updateSealedPushCredentials(
  directoryId: string,
  changes: SealedPushCredentialChanges,
): Promise<void> {
  const update = updateExpression(changes, attributes);
  if (!update) return;
  await dynamo.send(
    new UpdateCommand({ TableName: tableName, Key: pushCredentialsKey(directoryId), ...update }),
  );
}
