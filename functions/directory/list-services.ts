import { listServicesEndpoint } from '#shared/http/endpoints/services';

/** GET /directory/v3/services: the subject's services (sdk-compatibility §7.1). */
export const handler = listServicesEndpoint('dir');
