import { updateServiceEndpoint } from '#shared/http/endpoints/services';

/** PATCH /directory/v3/services: change the fields present. */
export const handler = updateServiceEndpoint('dir');
