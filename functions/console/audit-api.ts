import { consoleHandler } from '#shared/http/console-handler';
import { auditEndpoints } from '#functions/console/audit-endpoints';

/**
 * The console's audit trail, a function of its own behind `/console/api/audit/{proxy+}`: it may read the audit table
 * and write none of it, where the console's other function writes records and reads none; no role has both, so none
 * can find a record and overwrite it. Every endpoint here is a GET, which the pipeline records nothing of.
 */
export const handler = consoleHandler(auditEndpoints);
