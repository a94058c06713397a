import { createServiceEndpoint } from '#shared/http/endpoints/services';

/** POST /organization/v3/services: create a service; answers exactly {"id"}. */
export const handler = createServiceEndpoint('org');
