import * as v from 'valibot';
import { maxAndroidKeyLength } from '#shared/domain/android-key';
import { maxFraudLockSeconds, rateLimitBounds } from '#shared/domain/push-fatigue';
import { seconds } from '#shared/http/schemas/common';

/**
 * The console's push credential bodies: each file bounded here, before the PKCS#12 parser or the key reader sees it.
 * A .p12 within a console body (32 KiB) is far above what Apple issues (a certificate and its key, a few KiB).
 */
export const maxConsoleP12Length = 24 * 1024;

/** PUT /console/api/directories/{id}/push/apns-certificate: the password-free .p12, base64, as `ios_p12` takes it. */
export const consoleApnsCertificateBody = v.strictObject({
  p12: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(maxConsoleP12Length, `must be at most ${maxConsoleP12Length} characters`),
  ),
});

/** PUT /console/api/directories/{id}/push/fcm: the Google service account's JSON key file, as `android_key` takes it. */
export const consoleFcmBody = v.strictObject({
  service_account: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(maxAndroidKeyLength, `must be at most ${maxAndroidKeyLength} characters`),
  ),
});

const appleId = v.pipe(v.string(), v.maxLength(10, 'must be 10 characters'));

/** PUT /console/api/directories/{id}/push/apns-token-key: the .p8's text, its key id, the team id and the bundle id. */
export const consoleApnsTokenKeyBody = v.strictObject({
  key_pem: v.pipe(v.string(), v.maxLength(4096, 'must be at most 4096 characters')),
  key_id: appleId,
  team_id: appleId,
  topic: v.pipe(v.string(), v.maxLength(255, 'must be at most 255 characters')),
});

/** PATCH /console/api/directories/{id}/settings: the per-directory rate limit and fraud lock (null: no lock). */
export const consoleDirectorySettingsBody = v.strictObject({
  rate_limit: v.optional(
    v.strictObject({
      count: v.pipe(
        v.number(),
        v.integer('must be an integer'),
        v.minValue(1, `must be 1 to ${rateLimitBounds.maxCount}`),
        v.maxValue(rateLimitBounds.maxCount, `must be 1 to ${rateLimitBounds.maxCount}`),
      ),
      window_seconds: seconds(rateLimitBounds.minWindow, rateLimitBounds.maxWindow),
    }),
  ),
  fraud_lock_seconds: v.optional(v.nullable(seconds(60, maxFraudLockSeconds))),
});
