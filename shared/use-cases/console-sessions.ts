import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { addressBlock } from '#shared/domain/address-block';
import type { AdminAccount } from '#shared/domain/console-admin';
import {
  type ConsoleSession,
  consoleSignInLimit,
  sessionIsLive,
  sessionNeedsTouch,
} from '#shared/domain/console-session';
import { rateWindow } from '#shared/domain/push-fatigue';
import { ApiError } from '#shared/errors';
import { logger } from '#shared/log';
import { addressFailuresKey, adminFailuresKey } from '#shared/store/console-keys';
import { deleteSession, getSession, putSession, touchSession } from '#shared/store/console-sessions';
import type { ItemKey } from '#shared/store/keys';
import { countAttempt, uncountAttempt } from '#shared/store/link-attempts';
import { getAdminAccount } from '#shared/store/console-admins';
import { cancelApproval } from '#shared/use-cases/console-approvals';
import { claimedAdmin, verifyAdminAssertion } from '#shared/use-cases/console-passkeys';
import { epochSeconds } from '#shared/time';

/** A session just made: its token goes into the cookie once, and is kept nowhere else. */
export interface NewSession {
  readonly token: string;
  readonly session: ConsoleSession;
  readonly account: AdminAccount;
}

/**
 * POST /console/api/sign-in, within its attempt limits: each attempt is counted against the caller's address block
 * and, once the passkey names an account, against that account, 10 in 15 minutes each; either at its limit is 429
 * HTTP-429 with Retry-After, whatever the assertion. A sign-in that succeeds gives its counts back; a refused one
 * keeps them. Then a session: stage `passkey`, a fresh CSRF secret.
 */
export async function signIn(
  assertion: AuthenticationResponseJSON,
  address: string,
  origin: string | undefined,
  now: Date,
): Promise<NewSession> {
  const nowSeconds = epochSeconds(now);
  const window = rateWindow(consoleSignInLimit, nowSeconds);
  const counted: ItemKey[] = [];
  const count = async (key: ItemKey, where: string) => {
    if (!(await countAttempt(key, consoleSignInLimit.count, window.end))) {
      await giveBack(counted);
      throw tooManyFailures(where, window.end - nowSeconds);
    }
    counted.push(key);
  };
  await count(addressFailuresKey(addressBlock(address), window.start), 'from this address');
  const account = await claimedAdmin(assertion);
  if (!account) throw new ApiError('CON-006', 'This passkey signs nobody in');
  await count(adminFailuresKey(account.adminId, window.start), 'for this account');
  await verifyAdminAssertion(account, assertion, origin, now);
  await giveBack(counted);
  const token = randomBytes(32).toString('base64url');
  const session: ConsoleSession = {
    adminId: account.adminId,
    organizationId: account.organizationId,
    role: account.role,
    name: account.name,
    stage: 'passkey',
    csrfSecret: randomBytes(32).toString('base64url'),
    sessionId: randomBytes(12).toString('base64url'),
    createdAt: nowSeconds,
    lastSeenAt: nowSeconds,
    confirmedAt: nowSeconds,
  };
  await putSession(token, session);
  // A role change or removal meanwhile ends the sessions it finds; one stored after it looked is ended here.
  const current = await getAdminAccount(account.adminId);
  if (current?.role !== account.role) {
    await deleteSession(token);
    throw new ApiError('CON-006', 'This account changed while signing in; sign in again');
  }
  return { token, session, account };
}

async function giveBack(counted: readonly ItemKey[]): Promise<void> {
  try {
    await Promise.all(counted.map(uncountAttempt));
  } catch (error) {
    // The answer stands: a count not given back only brings that window's limit nearer.
    logger.warn('A console sign-in attempt was not uncounted', { error });
  }
}

function tooManyFailures(where: string, retryAfter: number): ApiError {
  return new ApiError(
    'HTTP-429',
    `Too many failed sign-ins ${where}: ${consoleSignInLimit.count} in ${consoleSignInLimit.windowSeconds} seconds; try again in ${retryAfter} seconds`,
    { data: { retry_after: retryAfter } },
  );
}

/**
 * The live session a cookie's token names, its idle deadline moved (at most once a minute); CON-001 when there is
 * none, or it is past its idle or absolute deadline, whichever the store still holds.
 */
export async function liveSession(token: string | undefined, now: Date): Promise<ConsoleSession> {
  const nowSeconds = epochSeconds(now);
  const session = token === undefined ? undefined : await getSession(token);
  if (!session || !sessionIsLive(session, nowSeconds)) throw noSession();
  // The account is read on every request too, so that no session outlives its admin's removal or role, even when the
  // removal stopped before it ended the sessions.
  const [account] = await Promise.all([
    getAdminAccount(session.adminId),
    sessionNeedsTouch(session, nowSeconds) ? touchSession(token as string, session, nowSeconds) : undefined,
  ]);
  if (account?.role !== session.role || account.organizationId !== session.organizationId) throw noSession();
  return session;
}

const noSession = () => new ApiError('CON-001', 'No console session, or it has ended; sign in again');

/**
 * POST /console/api/sign-out: the session goes, and first the approval it waits for, cancelled so that the admin's
 * authenticator stops showing it and the admin's next sign-in may ask for one. The cancelled request's id, if any.
 */
export async function signOut(
  token: string,
  session: Pick<ConsoleSession, 'stage' | 'approvalAuthRequest'>,
  now: Date,
): Promise<string | undefined> {
  const waiting = session.stage === 'passkey' ? session.approvalAuthRequest : undefined;
  // Before the session goes: should the cancel fail, signing out again finds the approval still named.
  const cancelled = waiting !== undefined && (await cancelApproval(waiting, now));
  await deleteSession(token);
  return cancelled ? waiting : undefined;
}
