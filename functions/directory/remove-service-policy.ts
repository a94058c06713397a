import { removeServicePolicyEndpoint } from '#shared/http/endpoints/services';

/** DELETE /directory/v3/service/policy: back to the blank LEGACY policy. */
export const handler = removeServicePolicyEndpoint('dir');
