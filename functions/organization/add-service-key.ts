import { addKeyEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** POST /organization/v3/service/keys: add a public key to a service; answers {"key_id"}. */
export const handler = addKeyEndpoint(serviceKeys('org'));
