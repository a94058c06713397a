import { describe, expect, it } from 'vitest';
import { consoleActor, roleFitsOrganization } from '#shared/domain/console-admin';
import {
  type ConsoleAction,
  consoleActions,
  mayPerform,
  onlyReads,
  sameOrganization,
} from '#shared/domain/console-permissions';
import { sessionIsLive, sessionMayAct, sessionNeedsTouch } from '#shared/domain/console-session';

const allowed = (role: Parameters<typeof mayPerform>[0]): ConsoleAction[] =>
  consoleActions.filter((action) => mayPerform(role, action));

describe('the console’s permission table', () => {
  it('lets the operator do everything, deployment-wide actions included', () => {
    expect(allowed('operator')).toEqual(consoleActions);
  });

  it('gives an owner everything of the organization, and nothing of the deployment', () => {
    expect(allowed('owner')).toEqual([
      'read',
      'directory-write',
      'service-write',
      'key-write',
      'organization-key-write',
      'user-helpdesk',
      'admin-management',
    ]);
  });

  it('lets an admin change directories, services, keys and users, but not manage admins', () => {
    expect(allowed('admin')).toEqual([
      'read',
      'directory-write',
      'service-write',
      'key-write',
      'user-helpdesk',
    ]);
  });

  it('lets helpdesk read and act for users only', () => {
    expect(allowed('helpdesk')).toEqual(['read', 'user-helpdesk']);
  });

  it('lets an auditor read and nothing else', () => {
    expect(allowed('auditor')).toEqual(['read']);
  });

  it('keeps the organization’s own keys to its owner and the operator', () => {
    expect(
      (['operator', 'owner', 'admin', 'helpdesk', 'auditor'] as const).filter((role) =>
        mayPerform(role, 'organization-key-write'),
      ),
    ).toEqual(['operator', 'owner']);
  });

  it('keeps deployment-wide actions to the operator', () => {
    expect(
      (['owner', 'admin', 'helpdesk', 'auditor'] as const).filter((role) => mayPerform(role, 'deployment')),
    ).toEqual([]);
  });

  it('counts only the auditor as a role that only reads', () => {
    expect((['operator', 'owner', 'admin', 'helpdesk', 'auditor'] as const).filter(onlyReads)).toEqual([
      'auditor',
    ]);
  });
});

describe('sameOrganization', () => {
  const organizationA = '4a1c5c5e-0f3e-4f7e-9d6d-2b7f9a1e0c11';
  const organizationB = '9b2d6d6f-1a4f-4a8f-8e7e-3c8a0b2f1d22';

  it('lets an organization’s admin touch its own ids only', () => {
    for (const role of ['owner', 'admin', 'helpdesk', 'auditor'] as const) {
      expect(sameOrganization({ organizationId: organizationA, role }, organizationA)).toBe(true);
      expect(sameOrganization({ organizationId: organizationA, role }, organizationB)).toBe(false);
    }
  });

  it('lets the operator touch every organization’s', () => {
    expect(sameOrganization({ organizationId: null, role: 'operator' }, organizationA)).toBe(true);
    expect(sameOrganization({ organizationId: null, role: 'operator' }, organizationB)).toBe(true);
  });

  it('never lets an account without an organization pass as one of an organization', () => {
    expect(sameOrganization({ organizationId: null, role: 'owner' }, organizationA)).toBe(false);
  });
});

describe('admin accounts', () => {
  it('name the admin as a console actor', () => {
    expect(consoleActor('a1')).toBe('console:a1');
  });

  it('give the operator no organization and every other role one', () => {
    expect(roleFitsOrganization('operator', null)).toBe(true);
    expect(roleFitsOrganization('operator', 'org')).toBe(false);
    expect(roleFitsOrganization('owner', null)).toBe(false);
    expect(roleFitsOrganization('auditor', 'org')).toBe(true);
  });
});

describe('console sessions', () => {
  const session = { createdAt: 1_000_000, lastSeenAt: 1_000_000 };

  it('end after 15 idle minutes', () => {
    expect(sessionIsLive(session, 1_000_000 + 15 * 60 - 1)).toBe(true);
    expect(sessionIsLive(session, 1_000_000 + 15 * 60)).toBe(false);
  });

  it('end 8 hours after sign-in however busy', () => {
    const busy = { createdAt: 1_000_000, lastSeenAt: 1_000_000 + 8 * 3600 - 10 };
    expect(sessionIsLive(busy, 1_000_000 + 8 * 3600 - 1)).toBe(true);
    expect(sessionIsLive(busy, 1_000_000 + 8 * 3600)).toBe(false);
  });

  it('move their idle deadline at most once a minute', () => {
    expect(sessionNeedsTouch(session, 1_000_000 + 59)).toBe(false);
    expect(sessionNeedsTouch(session, 1_000_000 + 60)).toBe(true);
  });

  it('let only a role that only reads act before the sign-in is approved', () => {
    expect(sessionMayAct({ role: 'auditor', stage: 'passkey' })).toBe(true);
    for (const role of ['operator', 'owner', 'admin', 'helpdesk'] as const) {
      expect(sessionMayAct({ role, stage: 'passkey' })).toBe(false);
      expect(sessionMayAct({ role, stage: 'approved' })).toBe(true);
    }
  });
});
