/**
 * The table's shape, shared by the CDK stack and the local runtime so both create the same table: string `pk`/`sk`,
 * and `ttl` (epoch seconds) for physical purge only.
 */
export const partitionKeyName = 'pk';
export const sortKeyName = 'sk';
export const timeToLiveAttribute = 'ttl';

/**
 * The sparse index of answered requests whose webhook event is not yet known to be on the queue: the answer's write
 * sets both attributes, the webhook worker removes them, and the announcement sweep finds what is left. Sharded by
 * the first hex digit of the request's id so that no index partition takes every answer.
 */
export const announcementIndexName = 'announcements';
export const announcementShardAttribute = 'announceShard';
export const announcementDueAttribute = 'announceDueAt';
export const announcementShards = [...'0123456789abcdef'];

/** What every partition value of the announcement index begins with: the sweep's grant names it. */
export const announcementShardPrefix = 'due#';
