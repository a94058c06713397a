import { describe, expect, it } from 'vitest';
import { type ItemKind, itemKindOf, itemKinds, leadingKeyPattern } from '#shared/store/item-kinds';
import * as keys from '#shared/store/keys';

const org = { type: 'org', id: 'o1' } as const;
const dir = { type: 'dir', id: 'd1' } as const;
const svc = { type: 'svc', id: 's1' } as const;
const dev = { type: 'dev', id: 'v1' } as const;
const entityKinds: Record<'org' | 'dir' | 'svc' | 'dev', ItemKind> = {
  org: 'organization',
  dir: 'directory',
  svc: 'service',
  dev: 'device',
};

/** Every key builder of the table, with the kind its partition key must be. */
const everyKey: [string, keys.ItemKey, ItemKind][] = [
  ['organization', keys.organizationKey('o1'), 'organization'],
  ['organization listing', keys.organizationListingKey('o1'), 'organizationList'],
  ['directory record', keys.directoryRecordKey('o1', 'd1'), 'organization'],
  ['directory name claim', keys.directoryNameClaimKey('o1', 'name'), 'organization'],
  ['service record of a directory', keys.serviceRecordKey(dir, 's1'), 'directory'],
  ['service record of an organization', keys.serviceRecordKey(org, 's1'), 'organization'],
  ['service name claim', keys.serviceNameClaimKey('name'), 'serviceName'],
  ['service look-alike claim', keys.serviceSkeletonClaimKey('narne'), 'serviceName'],
  ['service policy', keys.servicePolicyKey('s1'), 'service'],
  ['user record', keys.userRecordKey('d1', 'alice'), 'directory'],
  ['directory settings', keys.directorySettingsKey('d1'), 'directory'],
  ['push credentials', keys.pushCredentialsKey('d1'), 'directory'],
  ['rate counter', keys.rateCounterKey('d1', 'alice'), 'directory'],
  ['fraud lock', keys.fraudLockKey('d1', 'alice'), 'directory'],
  ['user head', keys.userHeadKey('u1'), 'userHead'],
  ['organization user index', keys.organizationUserIndexKey('o1', 'h', 'd1'), 'organization'],
  ['linking code', keys.linkCodeKey('ABC1234'), 'linkCode'],
  ['auth request', keys.authRequestKey('a1'), 'authRequest'],
  ['v1 app key', keys.v1AppKeyLookupKey('123'), 'v1AppKey'],
  ['SDK key', keys.sdkKeyLookupKey('k'), 'sdkKey'],
  ['API key', keys.apiKeyKey('kid'), 'apiPublicKey'],
  ['current API key', keys.currentApiKeyKey, 'apiPublicKey'],
  ['jti of a directory', keys.jtiKey(dir, 'j'), 'jti'],
  ...[org, dir, svc, dev].map(
    (entity) =>
      [`${entity.type} head`, keys.entityHeadKey(entity), entityKinds[entity.type]] as [
        string,
        keys.ItemKey,
        ItemKind,
      ],
  ),
  ...[org, dir, svc, dev].map(
    (entity) =>
      [`${entity.type} key`, keys.entityKeyKey(entity, 'kid'), entityKinds[entity.type]] as [
        string,
        keys.ItemKey,
        ItemKind,
      ],
  ),
];

/** IAM's StringLike, for the patterns leadingKeyPattern makes. */
const like = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);

describe('item kinds', () => {
  it.each(everyKey)('names the %s partition by the one pattern of its kind', (_, key, kind) => {
    expect(itemKindOf(key.pk)).toBe(kind);
    const matching = (Object.keys(itemKinds) as ItemKind[]).filter((other) =>
      like(leadingKeyPattern(other), key.pk),
    );
    expect(matching).toEqual([kind]);
  });

  it('knows no kind for a partition no builder makes', () => {
    expect(itemKindOf('AUDIT#x')).toBeUndefined();
    expect(itemKindOf('ORGSX')).toBeUndefined();
  });
});
