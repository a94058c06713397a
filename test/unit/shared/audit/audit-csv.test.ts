import { describe, expect, it } from 'vitest';
import { auditCsvColumns, auditRecordsCsv } from '#shared/audit/audit-csv';
import type { AuditRecord } from '#shared/audit/audit-record';

const record: AuditRecord = {
  organization_id: 'org',
  time: '2026-01-01T00:00:00.000Z',
  request_id: 'r1',
  source_ip: '192.0.2.1',
  actor_type: 'console',
  actor_id: 'console:a1',
  operation: 'POST /console/api/directories',
  user: '=HYPERLINK("https://evil.example","x")',
  outcome: 'success',
  status: 201,
};

describe('an audit export as CSV', () => {
  it('has a header of every column and one quoted line a record, CRLF-ended', () => {
    const lines = auditRecordsCsv([record]).split('\r\n');
    expect(lines[0]).toBe(auditCsvColumns.map((column) => `"${column}"`).join(','));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(
      lines[1]?.startsWith('"2026-01-01T00:00:00.000Z","org","r1","192.0.2.1","console","console:a1","",'),
    ).toBe(true);
  });

  it('doubles quotes, and keeps a field a spreadsheet would run as a formula inert', () => {
    expect(auditRecordsCsv([record])).toContain(`"'=HYPERLINK(""https://evil.example"",""x"")"`);
    expect(auditRecordsCsv([{ ...record, user: '-1+1' }])).toContain(`"'-1+1"`);
    expect(auditRecordsCsv([{ ...record, user: 'plain' }])).toContain('"plain"');
  });
});
