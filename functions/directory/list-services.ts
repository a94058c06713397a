import { listServicesEndpoint } from '#shared/http/endpoints/services';

/** GET /directory/v3/services: the subject's services (docs/protocol.md#objects). */
export const handler = listServicesEndpoint('dir');
