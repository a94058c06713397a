import { GetCommand, PutCommand, type PutCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthAnswer, AuthRequest } from '#shared/domain/auth-request';
import { announcementDue } from '#shared/store/announcements';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { authRequestKey } from '#shared/store/keys';
import { deviceLastAnswer, type UserKey } from '#shared/domain/user';
import { releasePendingSlot, releasePendingSlotWrite } from '#shared/store/users';
import { type TableWrite, writeTogether } from '#shared/store/write-together';

/** Answered requests stay readable this long after they would have expired, then DynamoDB purges them. */
const retentionSeconds = 30 * 24 * 3600;

/** A new request's write: together with the claim of its user's slot, so that it exists only if the claim holds. */
export function newAuthRequestWrite(auth: AuthRequest): TableWrite {
  const { answer: _answer, ...fields } = auth;
  return {
    Put: {
      TableName: tableName,
      Item: { ...authRequestKey(auth.id), ...fields, ttl: auth.expiresAt + retentionSeconds },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function putAuthRequest(auth: AuthRequest): Promise<void> {
  await dynamo.send(new PutCommand(newAuthRequestWrite(auth).Put as PutCommandInput));
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
 * safely.
 */
function transitionWrite(
  authId: string,
  update: string,
  values: Record<string, unknown>,
  nowSeconds: number,
  extraCondition = '',
) {
  return {
    TableName: tableName,
    Key: authRequestKey(authId),
    UpdateExpression: update,
    ConditionExpression: `#status = :pending AND expiresAt > :now${extraCondition}`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pending': 'PENDING', ':now': nowSeconds, ...values },
  };
}

/** A state change on its own: the request as changed, or undefined when the condition failed. */
async function transition(...change: Parameters<typeof transitionWrite>): Promise<AuthRequest | undefined> {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({ ...transitionWrite(...change), ReturnValues: 'ALL_NEW' }),
    );
    return Attributes && toAuthRequest(Attributes);
  } catch (error) {
    if (isConditionalFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Ends a pending request with `end`, one of its transitions, and frees its user's slot in the same write, so that
 * the slot, which is what devices list, never names a request that has ended. A slot the request no longer holds (its
 * user was removed) does not stop the end. False when the request's own condition failed.
 */
async function endWithSlot(
  end: ReturnType<typeof transitionWrite>,
  user: UserKey,
  authId: string,
  answered?: Parameters<typeof releasePendingSlotWrite>[2],
) {
  const failed = await writeTogether([{ Update: end }, releasePendingSlotWrite(user, authId, answered)]);
  if (failed.length === 0) return true;
  if (failed.includes(0)) return false;
  try {
    await dynamo.send(new UpdateCommand(end));
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
  // The device that answered is no longer the user's: the slot, if the request still holds it, is freed alone.
  if (answered) await releasePendingSlot(user, authId);
  return true;
}

const userOf = (auth: AuthRequest): UserKey => ({
  directoryId: auth.directoryId,
  identifier: auth.identifier,
});

/** Cancels a pending request of `serviceId`'s; the request as it was, or undefined when it was not pending. */
export async function cancelAuthRequest(
  authId: string,
  serviceId: string,
  nowSeconds: number,
): Promise<AuthRequest | undefined> {
  const auth = await getAuthRequest(authId);
  if (!auth || auth.serviceId !== serviceId) return undefined;
  const cancel = transitionWrite(
    authId,
    'SET #status = :cancelled',
    { ':cancelled': 'CANCELLED', ':service': serviceId },
    nowSeconds,
    ' AND serviceId = :service',
  );
  return (await endWithSlot(cancel, userOf(auth), authId)) ? auth : undefined;
}

/**
 * How an answer passes a request's number matching: with its code, or as a denial said without it, which only a
 * request with number matching takes (docs/protocol.md#number-matching).
 */
export type NumberMatchPass = { readonly code: string } | { readonly deniedWithoutCode: true };

/**
 * A device's answer, recorded if the request is pending, unexpired and offered to that device, and either needs no
 * number-matching code or passes it as `numberMatch` says (checked by the caller first; this only closes the race).
 */
function answerChange(
  authId: string,
  answer: AuthAnswer,
  nowSeconds: number,
  numberMatch?: NumberMatchPass,
): Parameters<typeof transitionWrite> {
  // Marked due in the same write, so an answer whose event never reached the queue is found by the sweep.
  const due = announcementDue(authId, nowSeconds);
  return [
    authId,
    `SET #status = :answered, answer = :answer, ${due.set}`,
    {
      ...due.values,
      ':answered': 'ANSWERED',
      ':answer': answer,
      ':device': answer.deviceId,
      ...(numberMatch && 'code' in numberMatch ? { ':code': numberMatch.code } : {}),
    },
    nowSeconds,
    ` AND contains(deviceIds, :device) AND ${
      numberMatch === undefined
        ? 'attribute_not_exists(numberMatchCode)'
        : 'code' in numberMatch
          ? 'numberMatchCode = :code'
          : 'attribute_exists(numberMatchCode)'
    }`,
  ];
}

/**
 * Records the answer (see answerChange) and frees the user's slot in one write, noting the answer as the device's last
 * where the request's service is known; false when the answer's condition failed.
 */
export function answerWithSlot(
  slot: { readonly user: UserKey; readonly serviceId: string | undefined },
  ...answering: Parameters<typeof answerChange>
): Promise<boolean> {
  const [authId, answer] = answering;
  const answered =
    slot.serviceId === undefined
      ? undefined
      : { deviceId: answer.deviceId, lastAnswer: deviceLastAnswer(authId, slot.serviceId, answer) };
  return endWithSlot(transitionWrite(...answerChange(...answering)), slot.user, authId, answered);
}

/** The answer on its own (see answerChange): the request as answered, or undefined when its condition failed. */
export function answerAuthRequest(
  ...answering: Parameters<typeof answerChange>
): Promise<AuthRequest | undefined> {
  return transition(...answerChange(...answering));
}

/**
 * Counts a wrong number-matching code from a device the request was offered to; the count that reaches `max` ends the
 * request instead, with the answer `ending` makes (ANSWERED, `numberMatchFailed`). Each step is one conditional
 * update, so concurrent wrong codes are all counted and exactly one of them ends the request. Undefined when the
 * request is no longer pending.
 */
export async function recordNumberMatchFailure(
  auth: AuthRequest,
  deviceId: string,
  nowSeconds: number,
  max: number,
  ending: () => Promise<AuthAnswer>,
): Promise<{ readonly failures: number; readonly ended: boolean } | undefined> {
  const counted = await transition(
    auth.id,
    'SET numberMatchFailures = if_not_exists(numberMatchFailures, :zero) + :one',
    { ':zero': 0, ':one': 1, ':last': max - 1, ':device': deviceId },
    nowSeconds,
    ' AND contains(deviceIds, :device) AND (attribute_not_exists(numberMatchFailures) OR numberMatchFailures < :last)',
  );
  if (counted) return { failures: counted.numberMatchFailures ?? 0, ended: false };
  const due = announcementDue(auth.id, nowSeconds);
  const answer = await ending();
  const end = transitionWrite(
    auth.id,
    `SET numberMatchFailures = :max, numberMatchFailed = :failed, #status = :answered, answer = :answer, ${due.set}`,
    {
      ...due.values,
      ':max': max,
      ':last': max - 1,
      ':failed': true,
      ':answered': 'ANSWERED',
      ':answer': answer,
      ':device': deviceId,
    },
    nowSeconds,
    ' AND contains(deviceIds, :device) AND numberMatchFailures = :last',
  );
  const answered = { deviceId, lastAnswer: deviceLastAnswer(auth.id, auth.serviceId, answer, true) };
  return (await endWithSlot(end, userOf(auth), auth.id, answered))
    ? { failures: max, ended: true }
    : undefined;
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
