import { getServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** POST /organization/v3/service/policy/item: the service policy (sdk-compatibility §8.2). */
export const handler = getServicePolicyEndpoint('org');
