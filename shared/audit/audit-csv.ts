import type { AuditRecord } from '#shared/audit/audit-record';

/** The columns of an exported audit trail, in the order of AuditRecord's fields. */
export const auditCsvColumns: readonly (keyof AuditRecord)[] = [
  'time',
  'organization_id',
  'request_id',
  'source_ip',
  'actor_type',
  'actor_id',
  'admin_role',
  'admin_name',
  'session_id',
  'kid',
  'subject',
  'operation',
  'directory_id',
  'service_id',
  'user',
  'device_id',
  'auth_request_id',
  'target_id',
  'outcome',
  'status',
  'error_code',
  'auth_event',
];

/**
 * Audit records as CSV (RFC 4180: CRLF lines, every field quoted, quotes doubled), one record a line under a header.
 * A field a spreadsheet would read as a formula (a user's identifier starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) is prefixed with `'`, so that opening the export runs nothing a user chose.
 */
export function auditRecordsCsv(records: readonly AuditRecord[]): string {
  const lines = [
    auditCsvColumns.map(field).join(','),
    ...records.map((record) => auditCsvColumns.map((column) => field(record[column])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

function field(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  const inert = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${inert.replaceAll('"', '""')}"`;
}
