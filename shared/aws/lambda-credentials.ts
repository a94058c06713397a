import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The AWS SDK's default credential chain as a function in Lambda needs it: Lambda puts its role's credentials in the
 * environment. The handler bundles take this in place of `@aws-sdk/credential-provider-node`, whose other sources
 * (profiles, SSO, web identity, containers, the instance metadata service) carry about 80 KB of clients no function
 * ever calls; the CLIs, the local runtime and the tests keep the whole chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
