/**
 * The operation that reads the audit trail. Its function may Query the audit table and nothing else: a role that
 * could both read records and put items could overwrite what it read, so the reader writes no records.
 */
export const auditReaderRoute = 'POST /organization/v3/audit/list';
