import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ConsoleSession, consoleAbsoluteSeconds, sessionEndsAt } from '#shared/domain/console-session';
import {
  adminAccountKey,
  adminSessionKey,
  secretDigest,
  sessionKey,
  sessionKeyOfDigest,
} from '#shared/store/console-keys';
import { dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';

/**
 * Stores a new session, and first its entry in its admin's list of sessions, which is how a role change or a removal
 * finds and ends it; the entry lives as long as the session can.
 */
export async function putSession(token: string, session: ConsoleSession): Promise<void> {
  const expiresAt = sessionEndsAt(session);
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...adminSessionKey(session.adminId, secretDigest(token)),
        ttl: session.createdAt + consoleAbsoluteSeconds + 3600,
      },
    }),
  );
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

/**
 * Ends every session of an admin (a role change or a removal): each one the admin's list names, and its entry. The
 * sign-in checks the account again after storing its session, so one racing this is ended by one side or the other.
 */
export async function endAdminSessions(adminId: string): Promise<number> {
  const entries = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :session)',
    ExpressionAttributeValues: { ':pk': adminAccountKey(adminId).pk, ':session': 'SESSION#' },
    ProjectionExpression: 'pk, sk',
  });
  for (const entry of entries) {
    const digest = String(entry.sk).slice('SESSION#'.length);
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: sessionKeyOfDigest(digest) }));
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: adminSessionKey(adminId, digest) }));
  }
  return entries.length;
}
