import { randomBytes, randomUUID } from 'node:crypto';
import { generateSecret, verify } from 'otplib';
import type { Service } from '#shared/domain/service';
import type { StoredTotp } from '#shared/domain/user';
import { seal, unseal } from '#shared/domain/user-identity';
import { notFound } from '#shared/errors';
import { ensureUser, getUser, markTotpStepUsed, putUserTotp, removeUserTotp } from '#shared/store/users';
import { findServiceUser } from '#shared/use-cases/users';

/** RFC 6238 settings every authenticator app understands; the SDKs' checks want these bounds (§11.2). */
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
 * replacing any earlier one. The secret is returned once and kept sealed under the deployment's hash key.
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

/** DELETE /directory/v3/totp: succeeds whether or not the user or a secret existed. */
export async function removeTotp(directoryId: string, identifier: string): Promise<void> {
  const key = { directoryId, identifier };
  if (await getUser(key)) await removeUserTotp(key);
}

/**
 * POST /service/v3/totp: whether `otp` is the user's current code, allowing one period of clock drift either way.
 * Each code is accepted once: the time step it matched is recorded, and no code of that step or an earlier one passes
 * again. A user without TOTP (or unknown) is 404.
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
  if (!/^\d+$/.test(otp) || otp.length !== totp.digits) return { valid: false };
  const epoch = Math.floor(now.getTime() / 1000);
  const result = await verify({
    secret: unseal(hashKey, sealPurpose, totp.sealedSecret),
    token: otp,
    algorithm: totp.algorithm.toLowerCase() as 'sha1' | 'sha256' | 'sha512',
    digits: totp.digits,
    period: totp.period,
    epoch,
    epochTolerance: totp.period,
  });
  if (!result.valid) return { valid: false };
  const key = { directoryId: resolved.user.directoryId, identifier: resolved.user.identifier };
  // The step the code belongs to: the current one moved by the drift it matched at.
  const step = Math.floor(epoch / totp.period) + result.delta;
  return { valid: await markTotpStepUsed(key, step) };
}
