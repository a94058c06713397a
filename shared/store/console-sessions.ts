import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ConsoleSession, sessionEndsAt } from '#shared/domain/console-session';
import { sessionKey } from '#shared/store/console-keys';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';

export async function putSession(token: string, session: ConsoleSession): Promise<void> {
  const expiresAt = sessionEndsAt(session);
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...sessionKey(token), ...session, expiresAt, ttl: expiresAt + 3600 },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The session a token names, live or not: the caller checks its deadlines (the TTL purges late). */
export async function getSession(token: string): Promise<ConsoleSession | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: sessionKey(token), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ttl: _ttl, ...session } = Item;
  return session as ConsoleSession;
}

/**
 * Moves a session's idle deadline to `nowSeconds`, once: conditioned on the last-seen time it was read with, so that
 * concurrent requests write it once, and a session signed out meanwhile is not brought back.
 */
export async function touchSession(
  token: string,
  session: ConsoleSession,
  nowSeconds: number,
): Promise<void> {
  const expiresAt = sessionEndsAt({ ...session, lastSeenAt: nowSeconds });
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(token),
        UpdateExpression: 'SET lastSeenAt = :now, expiresAt = :expires, #ttl = :ttl',
        ConditionExpression: 'lastSeenAt = :seen',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':now': nowSeconds,
          ':expires': expiresAt,
          ':ttl': expiresAt + 3600,
          ':seen': session.lastSeenAt,
        },
      }),
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}

export async function deleteSession(token: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: sessionKey(token) }));
}

/** Records that the admin gave their passkey again in this session, unless the session was signed out meanwhile. */
export async function confirmSession(token: string, nowSeconds: number): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(token),
        UpdateExpression: 'SET confirmedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': nowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
