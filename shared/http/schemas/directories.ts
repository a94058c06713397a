import * as v from 'valibot';
import { maxAndroidKeyLength } from '#shared/domain/android-key';
import { displayName, flag, httpUrl, optionalNullable, uuid } from '#shared/http/schemas/common';

export const createDirectoryBody = v.strictObject({ name: displayName });

export const listDirectoriesByIdsBody = v.strictObject({
  directory_ids: v.pipe(v.array(uuid), v.maxLength(100, 'at most 100 ids per request')),
});

export const updateDirectoryBody = v.strictObject({
  directory_id: uuid,
  active: optionalNullable(flag),
  android_key: optionalNullable(
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(maxAndroidKeyLength, 'is too long')),
  ),
  // A push certificate with its chain stays well under 64 KB of base64.
  ios_p12: optionalNullable(v.pipe(v.string(), v.maxLength(65_536, 'is too long'))),
  denial_context_inquiry_enabled: optionalNullable(flag),
  webhook_url: optionalNullable(httpUrl),
});

/** Bodies that name one directory of the caller's organization. */
export const directoryIdBody = v.strictObject({ directory_id: uuid });

export const removeSdkKeyBody = v.strictObject({ directory_id: uuid, sdk_key: uuid });
