import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { getHead, type HeadItem } from '#shared/store/heads';
import { entityHeadKey, v1AppKeyLookupKey } from '#shared/store/keys';

/** A service's legacy v1 credentials: its app key, and a digest of its secret (the secret itself is not kept). */
export interface V1Credentials {
  readonly appKey: string;
  /** SHA-256 of the secret, hex. */
  readonly secretDigest: string;
}

/** Gives a service new v1 credentials, retiring its old app key. False when there is no such service. */
export async function setV1Credentials(serviceId: string, credentials: V1Credentials): Promise<boolean> {
  const entity = { type: 'svc', id: serviceId } as const;
  const previous = (await getHead(entity))?.v1 as V1Credentials | undefined;
  await dynamo.send(
    new PutCommand({ TableName: tableName, Item: { ...v1AppKeyLookupKey(credentials.appKey), serviceId } }),
  );
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entityHeadKey(entity),
        UpdateExpression: 'SET v1 = :v1',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':v1': credentials },
      }),
    );
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
  if (previous && previous.appKey !== credentials.appKey) {
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: v1AppKeyLookupKey(previous.appKey) }));
  }
  return true;
}

/** The service an app key belongs to, if any. */
export async function getV1ServiceId(appKey: string): Promise<string | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: v1AppKeyLookupKey(appKey), ConsistentRead: true }),
  );
  return Item?.serviceId as string | undefined;
}

export function v1CredentialsOf(head: HeadItem | undefined): V1Credentials | undefined {
  return head?.v1 as V1Credentials | undefined;
}
