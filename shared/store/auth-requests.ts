import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthAnswer, AuthRequest } from '#shared/domain/auth-request';
import { announcementDue } from '#shared/store/announcements';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { authRequestKey } from '#shared/store/keys';

/** Answered requests stay readable this long after they would have expired, then DynamoDB purges them. */
const retentionSeconds = 30 * 24 * 3600;

export async function putAuthRequest(auth: AuthRequest): Promise<void> {
  const { answer: _answer, ...fields } = auth;
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...authRequestKey(auth.id), ...fields, ttl: auth.expiresAt + retentionSeconds },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getAuthRequest(authId: string): Promise<AuthRequest | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: authRequestKey(authId), ConsistentRead: true }),
  );
  return Item && toAuthRequest(Item);
}

function toAuthRequest(item: Record<string, unknown>): AuthRequest {
  // The announcement mark is the sweep's bookkeeping, not part of the request.
  const { pk: _pk, sk: _sk, ttl: _ttl, announceShard: _shard, announceDueAt: _due, ...auth } = item;
  return auth as unknown as AuthRequest;
}

/**
 * Every state change is conditional on the request still pending and unexpired, so answer, cancel and expiry race
 * safely. Returns the request as changed, or undefined when the condition failed.
 */
async function transition(
  authId: string,
  update: string,
  values: Record<string, unknown>,
  nowSeconds: number,
  extraCondition = '',
): Promise<AuthRequest | undefined> {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: authRequestKey(authId),
        UpdateExpression: update,
        ConditionExpression: `#status = :pending AND expiresAt > :now${extraCondition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'PENDING', ':now': nowSeconds, ...values },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes && toAuthRequest(Attributes);
  } catch (error) {
    if (isConditionalFailure(error)) return undefined;
    throw error;
  }
}

/** Marks a request its creator lost the busy race with: it was never handed out and stays invisible. */
export async function voidAuthRequest(authId: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: authRequestKey(authId),
      UpdateExpression: 'SET #status = :void',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':void': 'VOID' },
    }),
  );
}

export function cancelAuthRequest(
  authId: string,
  serviceId: string,
  nowSeconds: number,
): Promise<AuthRequest | undefined> {
  return transition(
    authId,
    'SET #status = :cancelled',
    { ':cancelled': 'CANCELLED', ':service': serviceId },
    nowSeconds,
    ' AND serviceId = :service',
  );
}

/**
 * Records a device's answer if the request is pending, unexpired and offered to that device, and either needs no
 * number-matching code or `numberMatchCode` is its code (checked by the caller first; this only closes the race).
 */
export function answerAuthRequest(
  authId: string,
  answer: AuthAnswer,
  nowSeconds: number,
  numberMatchCode?: string,
): Promise<AuthRequest | undefined> {
  // Marked due in the same write, so an answer whose event never reached the queue is found by the sweep.
  const due = announcementDue(authId, nowSeconds);
  return transition(
    authId,
    `SET #status = :answered, answer = :answer, ${due.set}`,
    {
      ...due.values,
      ':answered': 'ANSWERED',
      ':answer': answer,
      ':device': answer.deviceId,
      ...(numberMatchCode === undefined ? {} : { ':code': numberMatchCode }),
    },
    nowSeconds,
    ` AND contains(deviceIds, :device) AND ${
      numberMatchCode === undefined ? 'attribute_not_exists(numberMatchCode)' : 'numberMatchCode = :code'
    }`,
  );
}

/**
 * Counts a wrong number-matching code from a device the request was offered to; the count that reaches `max` ends the
 * request instead, with the answer `ending` makes (ANSWERED, `numberMatchFailed`). Each step is one conditional
 * update, so concurrent wrong codes are all counted and exactly one of them ends the request. Undefined when the
 * request is no longer pending.
 */
export async function recordNumberMatchFailure(
  authId: string,
  deviceId: string,
  nowSeconds: number,
  max: number,
  ending: () => Promise<AuthAnswer>,
): Promise<AuthRequest | undefined> {
  const counted = await transition(
    authId,
    'SET numberMatchFailures = if_not_exists(numberMatchFailures, :zero) + :one',
    { ':zero': 0, ':one': 1, ':last': max - 1, ':device': deviceId },
    nowSeconds,
    ' AND contains(deviceIds, :device) AND (attribute_not_exists(numberMatchFailures) OR numberMatchFailures < :last)',
  );
  if (counted) return counted;
  const due = announcementDue(authId, nowSeconds);
  return transition(
    authId,
    `SET numberMatchFailures = :max, numberMatchFailed = :failed, #status = :answered, answer = :answer, ${due.set}`,
    {
      ...due.values,
      ':max': max,
      ':last': max - 1,
      ':failed': true,
      ':answered': 'ANSWERED',
      ':answer': await ending(),
      ':device': deviceId,
    },
    nowSeconds,
    ' AND contains(deviceIds, :device) AND numberMatchFailures = :last',
  );
}

/**
 * Notes that an expiry has been counted, once per request: true for the first caller only. Expiry is a time, not a
 * write, so whoever first sees a request expired counts it.
 */
export async function markExpiryCounted(authId: string): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: authRequestKey(authId),
        UpdateExpression: 'SET expiryCounted = :counted',
        ConditionExpression: 'attribute_not_exists(expiryCounted) AND #status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':counted': true, ':pending': 'PENDING' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
