import { listServicesByIdsEndpoint } from '#shared/http/endpoints/services';

/** POST /organization/v3/services/list: the named services; any not the subject's is 403. */
export const handler = listServicesByIdsEndpoint('org');
