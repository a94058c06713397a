import { addKeyEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** POST /directory/v3/service/keys: add a public key to a service; answers {"key_id"}. */
export const handler = addKeyEndpoint(serviceKeys('dir'));
