import { getServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** POST /directory/v3/service/policy/item: the service policy (docs/protocol.md#policies). */
export const handler = getServicePolicyEndpoint('dir');
