import { listServicesEndpoint } from '#shared/http/endpoints/services';

/** GET /organization/v3/services: the subject's services (docs/protocol.md#objects). */
export const handler = listServicesEndpoint('org');
