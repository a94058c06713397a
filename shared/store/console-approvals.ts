import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { approvalKey, consoleApprovalsKey, sessionKey } from '#shared/store/console-keys';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';

/**
 * Where the console's sign-in approvals live: one internal organization, directory and service for the deployment.
 * `ready` once the directory and the service exist; until then `claimedAt` (epoch seconds) says when a console
 * function set out to create them, so that one that died half-way is taken over later.
 */
export interface ConsoleApprovalsRecord {
  readonly organizationId: string;
  readonly directoryId: string;
  readonly serviceId: string;
  readonly ready: boolean;
  readonly claimedAt: number;
}

export async function getConsoleApprovals(): Promise<ConsoleApprovalsRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: consoleApprovalsKey, ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    organizationId: Item.organizationId as string,
    directoryId: Item.directoryId as string,
    serviceId: Item.serviceId as string,
    ready: Item.ready === true,
    claimedAt: Item.claimedAt as number,
  };
}

/** Writes the ids once: false when another function's are there already (the caller then reads theirs). */
export async function claimConsoleApprovals(record: ConsoleApprovalsRecord): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...consoleApprovalsKey, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** Takes over the creation a function claimed at `claimedAt` and never finished: of several, one gets it. */
export async function takeOverConsoleApprovals(claimedAt: number, nowSeconds: number): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: consoleApprovalsKey,
        UpdateExpression: 'SET claimedAt = :now',
        ConditionExpression: 'claimedAt = :claimed AND ready = :no',
        ExpressionAttributeValues: { ':now': nowSeconds, ':claimed': claimedAt, ':no': false },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

export async function markConsoleApprovalsReady(): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: consoleApprovalsKey,
      UpdateExpression: 'SET ready = :yes',
      ExpressionAttributeValues: { ':yes': true },
    }),
  );
}

/** The private key that opens one approval's answer, and the session it belongs to. */
export interface ApprovalKey {
  readonly authRequestId: string;
  readonly sessionId: string;
  readonly adminId: string;
  readonly kid: string;
  readonly privateKeyPem: string;
  /** Epoch seconds: the request's own expiry. */
  readonly expiresAt: number;
}

export async function putApprovalKey(approval: ApprovalKey): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...approvalKey(approval.authRequestId), ...approval, ttl: approval.expiresAt + 3600 },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getApprovalKey(authRequestId: string): Promise<ApprovalKey | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: approvalKey(authRequestId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...approval } = Item;
  return approval as ApprovalKey;
}

export async function deleteApprovalKey(authRequestId: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: approvalKey(authRequestId) }));
}

/** Names the approval a session waits for; false when the session is gone or no longer at stage `passkey`. */
export async function setSessionApproval(token: string, authRequestId: string): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(token),
        UpdateExpression: 'SET approvalAuthRequest = :auth',
        ConditionExpression: 'attribute_exists(pk) AND stage = :passkey',
        ExpressionAttributeValues: { ':auth': authRequestId, ':passkey': 'passkey' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * Moves a session to `approved`, once, and only for the approval it waits for: false when it is gone, or approved
 * already, or waits for another.
 */
export async function approveSession(token: string, authRequestId: string): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(token),
        UpdateExpression: 'SET stage = :approved REMOVE approvalAuthRequest',
        ConditionExpression: 'stage = :passkey AND approvalAuthRequest = :auth',
        ExpressionAttributeValues: { ':approved': 'approved', ':passkey': 'passkey', ':auth': authRequestId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
