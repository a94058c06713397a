import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { linkCodeKey } from '#shared/store/keys';

/** What a linking code stands for while it is valid: one pending device of one user. */
export interface LinkCode {
  readonly code: string;
  readonly deviceId: string;
  readonly organizationId: string;
  readonly directoryId: string;
  readonly identifier: string;
  readonly userId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
  /** The entity that started the link and the identity it addressed: whom its completion webhook is for. */
  readonly requester: string;
  readonly identity: 'api' | 'lka';
  /**
   * The requester's key its answer was encrypted to (the one that signed the request, when it can receive encryption):
   * the key its application surely holds, so the completion webhook goes to it too. Absent on codes made before it was
   * recorded.
   */
  readonly requesterKid?: string;
}

/** Stores a new code; false if the code is taken (the caller draws another). */
export async function putLinkCode(link: LinkCode): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...linkCodeKey(link.code), ...link, ttl: link.expiresAt + 3600 },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** A code that is still valid. */
export async function getLinkCode(code: string, nowSeconds: number): Promise<LinkCode | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: linkCodeKey(code), ConsistentRead: true }),
  );
  if (!Item || (Item.expiresAt as number) <= nowSeconds) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...link } = Item;
  return link as LinkCode;
}

/** Uses a code up: of two devices racing with one code, exactly one gets true. */
export async function consumeLinkCode(code: string, nowSeconds: number): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: linkCodeKey(code),
        ConditionExpression: 'expiresAt > :now',
        ExpressionAttributeValues: { ':now': nowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

export async function deleteLinkCode(code: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: linkCodeKey(code) }));
}
