import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  consoleChallengeSeconds,
  consoleSignInLimit,
  type ConsoleSession,
} from '#shared/domain/console-session';
import { relyingParty } from '#shared/domain/passkey';
import { rateWindow } from '#shared/domain/push-fatigue';
import { ApiError } from '#shared/errors';
import { getAdminAccount } from '#shared/store/console-admins';
import { putChallenge } from '#shared/store/console-ceremonies';
import { adminFailuresKey } from '#shared/store/console-keys';
import { confirmSession } from '#shared/store/console-sessions';
import { countAttempt, uncountAttempt } from '#shared/store/link-attempts';
import { verifyAdminAssertion } from '#shared/use-cases/console-passkeys';
import { epochSeconds } from '#shared/time';

/**
 * POST /console/api/confirmation/options: an assertion request for the signed-in admin's own passkeys, user
 * verification required, its challenge good for this session only, for 5 minutes.
 */
export async function confirmationOptions(session: ConsoleSession, origin: string | undefined, now: Date) {
  const account = await getAdminAccount(session.adminId);
  if (!account) throw new ApiError('CON-001', 'This admin no longer exists; sign in again');
  const { rpId } = relyingParty(origin);
  const challenge = randomBytes(32).toString('base64url');
  await putChallenge(challenge, {
    purpose: 'confirmation',
    invite: session.sessionId,
    expiresAt: epochSeconds(now) + consoleChallengeSeconds,
  });
  return {
    challenge,
    rpId,
    timeout: consoleChallengeSeconds * 1000,
    userVerification: 'required' as const,
    allowCredentials: account.passkeys.map((passkey) => ({
      id: passkey.credentialId,
      type: 'public-key' as const,
      transports: [...passkey.transports],
    })),
  };
}

/**
 * POST /console/api/confirmation: the admin's passkey again, over this session's challenge. Each attempt counts
 * against the admin's failed sign-ins (10 in 15 minutes, 429 beyond), and a good one gives its count back, so a
 * stolen session cannot try passkey answers without end.
 */
export async function confirm(
  session: ConsoleSession,
  token: string,
  assertion: AuthenticationResponseJSON,
  origin: string | undefined,
  now: Date,
): Promise<void> {
  const nowSeconds = epochSeconds(now);
  const window = rateWindow(consoleSignInLimit, nowSeconds);
  const counted = adminFailuresKey(session.adminId, window.start);
  if (!(await countAttempt(counted, consoleSignInLimit.count, window.end))) {
    const retryAfter = window.end - nowSeconds;
    throw new ApiError(
      'HTTP-429',
      `Too many failed passkey attempts for this account; try again in ${retryAfter} seconds`,
      { data: { retry_after: retryAfter } },
    );
  }
  const account = await getAdminAccount(session.adminId);
  if (!account) throw new ApiError('CON-001', 'This admin no longer exists; sign in again');
  await verifyAdminAssertion(account, assertion, origin, now, 'confirmation', session.sessionId);
  await uncountAttempt(counted);
  if (!(await confirmSession(token, nowSeconds))) {
    throw new ApiError('CON-001', 'No console session, or it has ended; sign in again');
  }
}
