import * as v from 'valibot';
import { displayName, flag, httpUrl, optionalNullable, uuid } from '#shared/http/schemas/common';

const description = v.pipe(v.string(), v.maxLength(1000, 'must be at most 1000 characters'));

export const createServiceBody = v.strictObject({
  name: displayName,
  description: optionalNullable(description),
  icon: optionalNullable(httpUrl),
  callback_url: optionalNullable(httpUrl),
  active: optionalNullable(flag),
});

export const listServicesByIdsBody = v.strictObject({
  service_ids: v.pipe(v.array(uuid), v.maxLength(100, 'at most 100 ids per request')),
});

export const updateServiceBody = v.strictObject({
  service_id: uuid,
  name: optionalNullable(displayName),
  description: optionalNullable(description),
  icon: optionalNullable(httpUrl),
  callback_url: optionalNullable(httpUrl),
  active: optionalNullable(flag),
});

/** Bodies that name one service of the caller. */
export const serviceIdBody = v.strictObject({ service_id: uuid });

export const setServicePolicyBody = v.strictObject({ service_id: uuid, policy: v.unknown() });
