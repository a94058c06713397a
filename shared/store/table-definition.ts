/**
 * The table's shape, shared by the CDK stack and the local runtime so both create the same table: string `pk`/`sk`,
 * and `ttl` (epoch seconds) for physical purge only.
 */
export const partitionKeyName = 'pk';
export const sortKeyName = 'sk';
export const timeToLiveAttribute = 'ttl';
