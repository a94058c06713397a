import { randomUUID } from 'node:crypto';
import { writeAuditRecord } from '#shared/audit/write-audit-record';

/** An operator's change made with the admin CLI, which no API request carries and so no pipeline records. */
export interface OperatorAction {
  readonly organizationId: string;
  /** Who ran the command, as far as this machine knows: `admin-cli:<account>`. */
  readonly actor: string;
  /** The admin command, `admin directory settings`, with the options it changed: `--proven-factors on`. */
  readonly operation: string;
  readonly directoryId?: string;
  readonly user?: string;
  readonly deviceId?: string;
  /** What the action came to, when it can come to more than one thing: `confirmed`, `cooling-off-ended`. */
  readonly target?: string;
}

/**
 * Records an operator's action in the organization's audit trail, so the organization sees each change of its
 * protections that it did not make itself.
 */
export function recordOperatorAction(action: OperatorAction, now: Date): Promise<void> {
  return writeAuditRecord({
    organization_id: action.organizationId,
    time: now.toISOString(),
    request_id: randomUUID(),
    source_ip: 'admin-cli',
    actor_type: 'operator',
    actor_id: action.actor,
    operation: action.operation,
    ...(action.directoryId ? { directory_id: action.directoryId } : {}),
    ...(action.user ? { user: action.user } : {}),
    ...(action.deviceId ? { device_id: action.deviceId } : {}),
    ...(action.target ? { target_id: action.target } : {}),
    outcome: 'success',
    status: 200,
  });
}
