import { randomBytes, randomUUID } from 'node:crypto';
import { generateSecret, verify } from 'otplib';
import type { Service } from '#shared/domain/service';
import { type StoredTotp, totpAttemptLimit, totpAttempts } from '#shared/domain/user';
import { seal, unseal } from '#shared/domain/user-identity';
import { notFound } from '#shared/errors';
import {
  ensureUser,
  getUser,
  putUserTotp,
  recordTotpSuccess,
  removeUserTotp,
  reserveTotpAttempt,
} from '#shared/store/users';
import { epochSeconds, isoSeconds } from '#shared/time';
import { findServiceUser } from '#shared/use-cases/users';

/** RFC 6238 settings every authenticator app understands; the SDKs' checks want these bounds (docs/protocol.md#totp). */
const totpSettings = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
const sealPurpose = 'totp';

export interface TotpSetup {
  readonly secret: string;
  readonly algorithm: StoredTotp['algorithm'];
  readonly period: number;
  readonly digits: number;
}

/**
 * POST /directory/v3/totp: a new secret for the user (created if the directory has none by that identifier),
 * replacing any earlier one with its failure count and lock. The secret is returned once and kept sealed under the
 * deployment's hash key.
 */
export async function generateTotp(
  organizationId: string,
  directoryId: string,
  identifier: string,
  now: Date,
  hashKey: Buffer,
): Promise<TotpSetup> {
  const key = { directoryId, identifier };
  await ensureUser(organizationId, key, randomUUID(), now);
  const secret = generateSecret({ length: 20 });
  await putUserTotp(key, {
    sealedSecret: seal(hashKey, sealPurpose, secret, randomBytes(12)),
    ...totpSettings,
  });
  return { secret, ...totpSettings };
}

/** DELETE /directory/v3/totp: the secret goes, with its failure count and lock; succeeds for an unknown user too. */
export async function removeTotp(directoryId: string, identifier: string): Promise<void> {
  const key = { directoryId, identifier };
  if (await getUser(key)) await removeUserTotp(key);
}

/**
 * POST /service/v3/totp: whether `otp` is the user's current code, allowing one period of clock drift either way.
 * Each code is accepted once: the time step it matched is recorded, and no code of that step or an earlier one passes
 * again. Every verification is counted before its code is checked, and while the user's TOTP is locked
 * (`totpAttemptLimit`) the answer is not valid without a check. A user without TOTP (or unknown) is 404.
 */
export async function verifyTotp(
  service: Service,
  identifier: string,
  otp: string,
  now: Date,
  hashKey: Buffer,
): Promise<{ valid: boolean }> {
  const resolved = await findServiceUser(service, identifier, hashKey);
  const totp = resolved?.user.totp;
  if (!resolved || !totp) throw notFound('The user has no TOTP secret');
  const key = { directoryId: resolved.user.directoryId, identifier: resolved.user.identifier };
  const nowSeconds = epochSeconds(now);
  // A lock seen on the read needs no write to refuse; the reservation is what decides under concurrency.
  if (totpAttempts(totp, nowSeconds).lockedUntil !== undefined) return { valid: false };
  const reserved = await reserveTotpAttempt(key, {
    maxFailures: totpAttemptLimit.maxFailures,
    nowSeconds,
    lockUntil: nowSeconds + totpAttemptLimit.lockSeconds,
  });
  if (!reserved || !/^\d+$/.test(otp) || otp.length !== totp.digits) return { valid: false };
  const result = await verify({
    secret: unseal(hashKey, sealPurpose, totp.sealedSecret),
    token: otp,
    algorithm: totp.algorithm.toLowerCase() as 'sha1' | 'sha256' | 'sha512',
    digits: totp.digits,
    period: totp.period,
    epoch: nowSeconds,
    epochTolerance: totp.period,
  });
  if (!result.valid) return { valid: false };
  // The step the code belongs to: the current one moved by the drift it matched at.
  const step = Math.floor(nowSeconds / totp.period) + result.delta;
  return { valid: await recordTotpSuccess(key, totp.sealedSecret, step) };
}

export interface TotpState {
  readonly configured: boolean;
  readonly failed_attempts: number;
  readonly locked: boolean;
  /** ISO 8601 UTC, while locked. */
  readonly locked_until: string | null;
}

/**
 * POST /directory/v3/totp/item: whether the user has TOTP, the consecutive failures counted towards the next lock, and
 * the lock with its end while there is one. An unknown user is 404.
 */
export async function getTotpState(directoryId: string, identifier: string, now: Date): Promise<TotpState> {
  const user = await getUser({ directoryId, identifier });
  if (!user) throw notFound('There is no such user');
  if (!user.totp) return { configured: false, failed_attempts: 0, locked: false, locked_until: null };
  const { failedAttempts, lockedUntil } = totpAttempts(user.totp, epochSeconds(now));
  return {
    configured: true,
    failed_attempts: failedAttempts,
    locked: lockedUntil !== undefined,
    locked_until: lockedUntil === undefined ? null : isoSeconds(new Date(lockedUntil * 1000)),
  };
}
