import { updateServiceEndpoint } from '#shared/http/endpoints/services';

/** PATCH /organization/v3/services: change the fields present. */
export const handler = updateServiceEndpoint('org');
