import { listServicesEndpoint } from '#shared/http/endpoints/services';

/** GET /organization/v3/services: the subject's services (sdk-compatibility §7.1). */
export const handler = listServicesEndpoint('org');
