import { getServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** POST /organization/v3/service/policy/item: the service policy (docs/protocol.md#policies). */
export const handler = getServicePolicyEndpoint('org');
