import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#shared/store/dynamo';
import { authRequestKey } from '#shared/store/keys';

/**
 * A push that went out, beside its auth request: what makes a redelivered queue message skip a device it reached
 * already. Kept a day past the request's expiry, then DynamoDB purges it.
 */
const deliveryKey = (authId: string, kind: string, deviceId: string) => ({
  pk: authRequestKey(authId).pk,
  sk: `PUSHED#${kind}#${deviceId}`,
});

const retentionSeconds = 24 * 3600;

export async function wasPushed(authId: string, kind: string, deviceId: string): Promise<boolean> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: deliveryKey(authId, kind, deviceId), ConsistentRead: true }),
  );
  return Item !== undefined;
}

export async function recordPushed(
  authId: string,
  kind: string,
  deviceId: string,
  expiresAt: number,
): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...deliveryKey(authId, kind, deviceId), ttl: expiresAt + retentionSeconds },
    }),
  );
}
