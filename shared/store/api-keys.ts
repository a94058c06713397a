import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#shared/store/dynamo';
import { apiKeyKey, apiKeyPartition, currentApiKeyKey } from '#shared/store/keys';

/**
 * The public halves of the API's keys. The private halves never enter the table: they live in the key ring
 * (a file locally, Secrets Manager in AWS), so the public-key endpoint needs no access to secrets.
 */
export interface ApiPublicKey {
  readonly kid: string;
  readonly publicKeyPem: string;
  /** ISO 8601 UTC. */
  readonly created: string;
}

export async function putApiPublicKey(key: ApiPublicKey): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...apiKeyKey(key.kid), kid: key.kid, publicKey: key.publicKeyPem, created: key.created },
    }),
  );
}

/** The current-key record is a copy of the current key, so serving it takes one read. */
export async function setCurrentApiPublicKey(key: ApiPublicKey): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...currentApiKeyKey, kid: key.kid, publicKey: key.publicKeyPem, created: key.created },
    }),
  );
}

/** Unpublishes a key: `/public/v3/public-key/{kid}` answers 404 for it and listings leave it out. */
export async function deleteApiPublicKey(kid: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: apiKeyKey(kid) }));
}

export async function getApiPublicKey(kid: string): Promise<ApiPublicKey | undefined> {
  const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: apiKeyKey(kid) }));
  return Item ? toApiPublicKey(Item) : undefined;
}

export async function getCurrentApiPublicKey(): Promise<ApiPublicKey | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: currentApiKeyKey, ConsistentRead: true }),
  );
  return Item ? toApiPublicKey(Item) : undefined;
}

export async function listApiPublicKeys(): Promise<{ current: string | undefined; keys: ApiPublicKey[] }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': apiKeyPartition },
    ConsistentRead: true,
  });
  const current = items.find((item) => item.sk === currentApiKeyKey.sk);
  return {
    current: current?.kid as string | undefined,
    keys: items.filter((item) => item.sk !== currentApiKeyKey.sk).map(toApiPublicKey),
  };
}

function toApiPublicKey(item: Record<string, unknown>): ApiPublicKey {
  return { kid: item.kid as string, publicKeyPem: item.publicKey as string, created: item.created as string };
}
