import { describe, expect, it } from 'vitest';
import { mayActFor, type Ownership } from '#shared/domain/subject';
import type { Entity } from '#shared/protocol/entity';

const org: Entity = { type: 'org', id: 'o1' };
const otherOrg: Entity = { type: 'org', id: 'o2' };
const dir: Entity = { type: 'dir', id: 'd1' };
const otherDir: Entity = { type: 'dir', id: 'd2' };
const dirService: Entity = { type: 'svc', id: 's1' };
const orgService: Entity = { type: 'svc', id: 's2' };

const device: Entity = { type: 'dev', id: 'v1' };

const ownedByOrg: Ownership = { organizationId: 'o1' };
const ownedByDir: Ownership = { organizationId: 'o1', directoryId: 'd1' };

describe('mayActFor', () => {
  it.each([
    ['an entity for itself', org, org, undefined, true],
    ['an organization for its directory', org, dir, ownedByOrg, true],
    ['an organization for its own service', org, orgService, ownedByOrg, true],
    ['an organization for its directory’s service', org, dirService, ownedByDir, true],
    ['a directory for its service', dir, dirService, ownedByDir, true],
    ['an organization for another organization', org, otherOrg, undefined, false],
    ['an organization for another organization’s directory', otherOrg, dir, ownedByOrg, false],
    ['a directory for an organization service', dir, orgService, ownedByOrg, false],
    ['a directory for another directory’s service', otherDir, dirService, ownedByDir, false],
    ['a directory for another directory', dir, otherDir, { organizationId: 'o1' }, false],
    ['a service for its directory', dirService, dir, ownedByOrg, false],
    ['anyone for an unknown subject', org, dir, undefined, false],
    ['a device for itself', device, device, undefined, true],
    ['an organization for a device of its directory', org, device, ownedByDir, false],
    ['an organization for a device it owns outright', org, device, ownedByOrg, false],
    ['a directory for its device', dir, device, ownedByDir, false],
    ['a service for a device', dirService, device, ownedByDir, false],
    ['a device for its service', device, dirService, ownedByDir, false],
  ])('%s → %s', (_, issuer, subject, ownership, expected) => {
    expect(mayActFor(issuer, subject, ownership)).toBe(expected);
  });
});
