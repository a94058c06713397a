/**
 * One entry of the audit trail: who did what, to what, with which outcome, when and from where. It never holds a
 * decrypted answer, a key, a code or a secret: only ids, names of operations, statuses and error codes.
 */
export interface AuditRecord {
  /** The organization the record belongs to; only its keys read it. */
  readonly organization_id: string;
  /** When the request arrived, ISO 8601 with milliseconds. */
  readonly time: string;
  /** API Gateway's request id, the one its access log and the function logs carry. */
  readonly request_id: string;
  readonly source_ip: string;
  /** The entity whose key signed the request (`org`, `dir`, `svc`, `dev`), and the key's id. */
  readonly actor_type: string;
  readonly actor_id: string;
  readonly kid?: string;
  /** The entity the request acted for, when it is not the actor (`svc:<id>` for an organization key acting for it). */
  readonly subject?: string;
  /** The operation: its method and route, `POST /service/v3/auths`. */
  readonly operation: string;
  readonly directory_id?: string;
  readonly service_id?: string;
  /** The directory user's identifier. */
  readonly user?: string;
  readonly device_id?: string;
  readonly auth_request_id?: string;
  /** The entity or key the operation created, changed or removed, when the request or the answer names one. */
  readonly target_id?: string;
  readonly outcome: AuditOutcome;
  readonly status: number;
  readonly error_code?: string;
  /** What happened to an authorization request, when the operation decided it (see {@link AuthRequestEvent}). */
  readonly auth_event?: AuthRequestEvent;
  /** A console action's: the admin's role when they acted (`actor_id` is `console:<admin>`). */
  readonly admin_role?: string;
  /** A console action's: the admin's name when they acted, so the trail reads who without another lookup. */
  readonly admin_name?: string;
  /** A console action's: the session it was made in (a short id, never the session's token). */
  readonly session_id?: string;
}

/** `success` (2xx), `refused` (4xx: the request was wrong or not allowed), `failed` (5xx: the service failed). */
export type AuditOutcome = 'success' | 'refused' | 'failed';

export const auditOutcomes: readonly AuditOutcome[] = ['success', 'refused', 'failed'];

/**
 * What an operation did to an authorization request. The service never sees whether the user approved: the device
 * seals its answer to the application, so `answered` is all it knows, `denied-as-fraud` when the device says the
 * user marked the request as fraud, and `ended-by-wrong-codes` when the service itself failed it.
 */
export type AuthRequestEvent =
  'created' | 'answered' | 'denied-as-fraud' | 'cancelled' | 'ended-by-wrong-codes' | 'expired';

/** The outcome class of an HTTP status. */
export function outcomeOf(status: number): AuditOutcome {
  if (status >= 500) return 'failed';
  return status >= 400 ? 'refused' : 'success';
}

/**
 * Operations that change state: every method but GET, except the reads the protocol sends as POST (`…/list`,
 * `…/item`). Their successes are recorded; a read's success is not, its refusals are.
 */
export function changesState(method: string, route: string): boolean {
  return method !== 'GET' && !/\/(list|item)$/.test(route);
}

/** The metric a function counts when it could not write a record (it logs the record instead); an alarm watches it. */
export const auditFailureMetric = 'AuditRecordsNotWritten';

/** Days a record is kept before TTL purges it, unless the stack's `auditRetentionDays` says otherwise. */
export const defaultAuditRetentionDays = 400;

/** Most records one answer of the audit endpoint holds. */
export const maxAuditPage = 1000;

/** The longest time range one query of the endpoint may ask for: a bounded read, however much the trail holds. */
export const maxAuditRangeDays = 31;
