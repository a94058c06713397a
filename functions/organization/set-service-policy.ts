import { setServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** PUT /organization/v3/service/policy: validate and store a service policy (§8.3). */
export const handler = setServicePolicyEndpoint('org');
