import type { AuditRecord } from '#shared/audit/audit-record';

/** What a use case adds to its request's audit record: what only it knows, such as an auth request's fate. */
export type AuditNote = Partial<
  Pick<
    AuditRecord,
    'auth_event' | 'auth_request_id' | 'user' | 'directory_id' | 'service_id' | 'device_id' | 'target_id'
  >
>;

// Keyed by the request's verified caller (or its reply or error), which lives exactly as long as its request: concurrent requests in one
// process (the local runtime) never see each other's notes, and nothing outlives the request.
const notes = new WeakMap<object, AuditNote>();

/**
 * Adds to the audit record the pipeline writes for this request what only the use case knows. `target` is the
 * request's `SignedRequest.caller`, or the reply or error the use case is about to give, which it returns; later
 * notes add to earlier ones.
 */
export function noteForAudit<Target extends object>(target: Target, note: AuditNote): Target {
  notes.set(target, { ...notes.get(target), ...note });
  return target;
}

/** The notes on a request's caller, reply or error, for the pipeline's record. */
export function auditNotesOf(target: object | undefined): AuditNote {
  return (target && notes.get(target)) ?? {};
}
