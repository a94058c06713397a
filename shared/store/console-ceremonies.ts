import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsoleRole } from '#shared/domain/console-admin';
import {
  adminListingPartition,
  challengeKey,
  inviteKey,
  inviteKeyOfDigest,
  inviteListingKey,
  secretDigest,
} from '#shared/store/console-keys';
import { dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import type { ItemKey } from '#shared/store/keys';

/** An invite as stored, under its token's digest: what the enrolled account will be. */
export interface StoredInvite {
  readonly organizationId: string | null;
  readonly role: ConsoleRole;
  /** Who invited: `console:<admin>` or `admin-cli:<account>`. */
  readonly invitedBy: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** A passkey ceremony's challenge as stored, under its digest. */
export interface StoredChallenge {
  readonly purpose: 'enrolment' | 'sign-in' | 'confirmation';
  /**
   * For an enrolment: the invite's token digest, so that a challenge serves that invite only; for a confirmation: the
   * session's id, so that it serves that session only.
   */
  readonly invite?: string;
  /** For an enrolment: the admin id the account will have, the passkey's user handle. */
  readonly adminId?: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** Items logically live until `expiresAt`; DynamoDB's TTL purges them some time later. */
async function putExpiring(key: ItemKey, item: { readonly expiresAt: number }): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...key, ...item, ttl: item.expiresAt + 3600 },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * Deletes an item if it is still unexpired (and `matching` holds) and answers what it was: of two callers, one gets
 * it. This is what makes invites and challenges single-use.
 */
async function take(
  key: ItemKey,
  nowSeconds: number,
  matching: Readonly<Record<string, string>> = {},
): Promise<Record<string, unknown> | undefined> {
  const names = Object.keys(matching);
  try {
    const { Attributes } = await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: key,
        ConditionExpression: ['expiresAt > :now', ...names.map((name, i) => `#m${i} = :m${i}`)].join(' AND '),
        ...(names.length
          ? { ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#m${i}`, name])) }
          : {}),
        ExpressionAttributeValues: {
          ':now': nowSeconds,
          ...Object.fromEntries(names.map((name, i) => [`:m${i}`, matching[name]])),
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionalFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Stores an invite, and first its entry in its organization's list of pending invites (by the token's digest, which
 * presents nothing): what it is for and who invited, for the owners' list. Both expire together.
 */
export async function putInvite(token: string, invite: StoredInvite): Promise<void> {
  await putExpiring(inviteListingKey(invite.organizationId, secretDigest(token)), invite);
  await putExpiring(inviteKey(token), invite);
}

/** A pending invite as its organization's list holds it. */
export interface PendingInvite extends StoredInvite {
  /** The token's SHA-256: an id for the list, which presents nothing. */
  readonly id: string;
}

/** The unused, unexpired invites of an organization (null: the deployment's operator invites). */
export async function listPendingInvites(
  organizationId: string | null,
  nowSeconds: number,
): Promise<PendingInvite[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :invite)',
    FilterExpression: 'expiresAt > :now',
    ExpressionAttributeValues: {
      ':pk': adminListingPartition(organizationId),
      ':invite': 'INVITE#',
      ':now': nowSeconds,
    },
  });
  return items.map((item) => ({
    id: String(item.sk).slice('INVITE#'.length),
    organizationId: item.organizationId as string | null,
    role: item.role as ConsoleRole,
    invitedBy: item.invitedBy as string,
    expiresAt: item.expiresAt as number,
  }));
}

/** An invite while it is unused and unexpired. */
export async function getInvite(token: string, nowSeconds: number): Promise<StoredInvite | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: inviteKey(token), ConsistentRead: true }),
  );
  if (!Item || (Item.expiresAt as number) <= nowSeconds) return undefined;
  return Item as unknown as StoredInvite;
}

/** Uses an invite up: what it was, or undefined when it was used, expired or never existed. */
export async function consumeInvite(token: string, nowSeconds: number): Promise<StoredInvite | undefined> {
  const invite = (await take(inviteKey(token), nowSeconds)) as StoredInvite | undefined;
  if (invite) {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: inviteListingKey(invite.organizationId, secretDigest(token)),
      }),
    );
  }
  return invite;
}

/** Revokes pending invites: each one, then its entry in its organization's list. */
export async function deleteInvites(invites: readonly Pick<PendingInvite, 'id' | 'organizationId'>[]) {
  for (const invite of invites) {
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: inviteKeyOfDigest(invite.id) }));
    await dynamo.send(
      new DeleteCommand({ TableName: tableName, Key: inviteListingKey(invite.organizationId, invite.id) }),
    );
  }
}

export const putChallenge = (challenge: string, stored: StoredChallenge) =>
  putExpiring(challengeKey(challenge), stored);

/** Uses a challenge up, if it is unexpired and was given for this purpose (and invite or session). */
export async function takeChallenge(
  challenge: string,
  purpose: StoredChallenge['purpose'],
  nowSeconds: number,
  invite?: string,
): Promise<StoredChallenge | undefined> {
  const matching: Record<string, string> = invite === undefined ? { purpose } : { purpose, invite };
  return (await take(challengeKey(challenge), nowSeconds, matching)) as StoredChallenge | undefined;
}
