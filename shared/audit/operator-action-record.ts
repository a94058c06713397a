import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { writeAuditRecord } from '#shared/audit/write-audit-record';

/** An operator's change made with the admin CLI, which no API request carries and so no pipeline records. */
export interface OperatorAction {
  readonly organizationId: string;
  /** The admin command, `admin directory settings`, with the options it changed: `--proven-factors on`. */
  readonly operation: string;
  readonly directoryId?: string;
  readonly user?: string;
  readonly deviceId?: string;
}

/**
 * Records an operator's action in the organization's audit trail, so the organization sees each change of its
 * protections that it did not make itself. The actor is the account that ran the CLI on this machine, all it knows.
 */
export function recordOperatorAction(action: OperatorAction, now: Date): Promise<void> {
  return writeAuditRecord({
    organization_id: action.organizationId,
    time: now.toISOString(),
    request_id: randomUUID(),
    source_ip: 'admin-cli',
    actor_type: 'operator',
    actor_id: `${userInfo().username}@${hostname()}`,
    operation: action.operation,
    ...(action.directoryId ? { directory_id: action.directoryId } : {}),
    ...(action.user ? { user: action.user } : {}),
    ...(action.deviceId ? { device_id: action.deviceId, target_id: action.deviceId } : {}),
    outcome: 'success',
    status: 200,
  });
}
