/**
 * The table's item kinds, one per partition-key prefix: what a route declares it reads and writes, what the stack
 * grants with `dynamodb:LeadingKeys`, and what the local runtime checks every store call against. IAM conditions see
 * the partition key only, so a kind is a partition prefix and everything under it (see keys.ts for the sort keys).
 */
export const itemKinds = {
  /** `ORG#<org>`: an organization's head and keys, its directories' and services' records, name claims, user index. */
  organization: { prefix: 'ORG#', exact: false },
  /** `ORGS`: the list of every organization (the admin CLI's). */
  organizationList: { prefix: 'ORGS', exact: true },
  /**
   * `DIR#<dir>`: a directory's head and keys, its services' records, settings, rate counters, fraud locks and counts of
   * failed links — and its users (devices, sessions, sealed TOTP secrets) and its sealed push credentials, which no
   * partition key separates.
   */
  directory: { prefix: 'DIR#', exact: false },
  /** `SVC#<svc>`: a service's head, keys and policy. */
  service: { prefix: 'SVC#', exact: false },
  /** `DEV#<dev>`: a linked device's head and keys. */
  device: { prefix: 'DEV#', exact: false },
  /** `USER#<user>`: where a user's record is, by user id. */
  userHead: { prefix: 'USER#', exact: false },
  /** `LINKCODE#<code>`: a linking code while it is valid. */
  linkCode: { prefix: 'LINKCODE#', exact: false },
  /** `LINKADDR#<block>`: failed link attempts from one address block. */
  linkAddress: { prefix: 'LINKADDR#', exact: false },
  /** `AUTH#<id>`: an authorization request and the record of its delivered pushes. */
  authRequest: { prefix: 'AUTH#', exact: false },
  /** `V1APP#<app key>`: the service a legacy v1 app key belongs to. */
  v1AppKey: { prefix: 'V1APP#', exact: false },
  /** `SVCNAME#<name>`: service name claims. */
  serviceName: { prefix: 'SVCNAME#', exact: false },
  /** `SDKKEY#<key>`: which directory an SDK key belongs to. */
  sdkKey: { prefix: 'SDKKEY#', exact: false },
  /** `API`: the API's public keys and which one is current. */
  apiPublicKey: { prefix: 'API', exact: true },
  /** `JTI#<issuer>#<jti>`: replay protection. */
  jti: { prefix: 'JTI#', exact: false },
  /**
   * `CONSOLE#…`: the console's admin accounts, their passkeys' index, invites, sessions, passkey challenges and
   * sign-in attempt counts (console-keys.ts). Only the console's function and the admin CLI touch them.
   */
  console: { prefix: 'CONSOLE#', exact: false },
  /**
   * `HEALTH#<org>`: an organization's health counters in 5-minute buckets (pushes by provider, auth requests by
   * outcome, latency histograms), purged by TTL. The push worker and the answering functions add; the console reads.
   */
  health: { prefix: 'HEALTH#', exact: false },
} as const satisfies Record<string, { readonly prefix: string; readonly exact: boolean }>;

export type ItemKind = keyof typeof itemKinds;

/** Which item kinds a function reads (GetItem, BatchGetItem, Query) and writes (PutItem, UpdateItem, DeleteItem). */
export interface TableGrant {
  readonly reads: readonly ItemKind[];
  readonly writes: readonly ItemKind[];
}

const kindsByPrefixLength = (Object.entries(itemKinds) as [ItemKind, (typeof itemKinds)[ItemKind]][]).sort(
  ([, a], [, b]) => b.prefix.length - a.prefix.length,
);

/** The kind of the item under a partition key, or undefined for a key no kind names. */
export function itemKindOf(partitionKey: string): ItemKind | undefined {
  for (const [kind, { prefix, exact }] of kindsByPrefixLength) {
    if (exact ? partitionKey === prefix : partitionKey.startsWith(prefix)) return kind;
  }
  return undefined;
}

/** The `dynamodb:LeadingKeys` pattern (IAM StringLike) that matches exactly the partition keys of a kind. */
export function leadingKeyPattern(kind: ItemKind): string {
  const { prefix, exact } = itemKinds[kind];
  return exact ? prefix : `${prefix}*`;
}
