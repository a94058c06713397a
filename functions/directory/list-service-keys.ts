import { listKeysEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** POST /directory/v3/service/keys/list: a service's public keys. */
export const handler = listKeysEndpoint(serviceKeys('dir'));
