import { setServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** PUT /organization/v3/service/policy: validate and store a service policy (docs/protocol.md#policies). */
export const handler = setServicePolicyEndpoint('org');
