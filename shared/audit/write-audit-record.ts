import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { type AuditRecord, auditFailureMetric } from '#shared/audit/audit-record';
import { logger } from '#shared/log';
import { metrics } from '#shared/metrics';
import { appendAuditRecord } from '#shared/store/audit-records';

/**
 * Appends a record to the audit trail. When the store refuses it (after the SDK's retries), the request is not
 * failed: the operation it records has already happened, so a 503 would undo nothing and invite a retry that does it
 * twice. Instead the whole record goes into the function's log, where it is kept and can be put back, and a metric
 * counts it so that an alarm tells the operator at once: nothing is lost, and nothing is lost silently.
 */
export async function writeAuditRecord(record: AuditRecord): Promise<void> {
  try {
    await appendAuditRecord(record);
  } catch (error) {
    logger.error('Audit record not written; it is in this log line', { auditRecord: record, error });
    metrics.addMetric(auditFailureMetric, MetricUnit.Count, 1);
  }
}
