import { writeAuditRecord } from '#shared/audit/write-audit-record';
import { type AdminAccount, consoleActor } from '#shared/domain/console-admin';
import type { AuditOutcome } from '#shared/audit/audit-record';

/**
 * Where the records of the operator's console actions go when the action touches no organization (a sign-in, an
 * operator invite): a partition of the audit trail no organization's id can name, which only the operator reads.
 */
export const deploymentAuditPartition = 'deployment';

/** A console admin's action, as the audit trail records it. */
export interface ConsoleAction {
  readonly admin: Pick<AdminAccount, 'adminId' | 'role' | 'organizationId'> & { readonly name?: string };
  /** The session's short id; absent before there is one (an enrolment, a refused sign-in). */
  readonly sessionId?: string;
  /** `POST /console/api/sign-in`, `admin console invite --role owner`. */
  readonly operation: string;
  /** The organization the action touched, when not the admin's own (the operator's). */
  readonly organizationId?: string;
  readonly requestId: string;
  readonly sourceIp: string;
  readonly targetId?: string;
  readonly directoryId?: string;
  readonly serviceId?: string;
  /** The directory user's identifier, when the action was for a user. */
  readonly user?: string;
  readonly deviceId?: string;
  readonly outcome: AuditOutcome;
  readonly status: number;
  readonly errorCode?: string;
}

/** Records a console action in the organization's trail (the deployment's for the operator), naming admin, role and session. */
export function recordConsoleAction(action: ConsoleAction, now: Date): Promise<void> {
  return writeAuditRecord({
    organization_id: action.organizationId ?? action.admin.organizationId ?? deploymentAuditPartition,
    time: now.toISOString(),
    request_id: action.requestId,
    source_ip: action.sourceIp,
    actor_type: 'console',
    actor_id: consoleActor(action.admin.adminId),
    admin_role: action.admin.role,
    ...(action.admin.name ? { admin_name: action.admin.name } : {}),
    ...(action.sessionId ? { session_id: action.sessionId } : {}),
    operation: action.operation,
    ...(action.directoryId ? { directory_id: action.directoryId } : {}),
    ...(action.serviceId ? { service_id: action.serviceId } : {}),
    ...(action.user ? { user: action.user } : {}),
    ...(action.deviceId ? { device_id: action.deviceId } : {}),
    ...(action.targetId ? { target_id: action.targetId } : {}),
    outcome: action.outcome,
    status: action.status,
    ...(action.errorCode ? { error_code: action.errorCode } : {}),
  });
}
