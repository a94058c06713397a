import { Logger, type LogItem } from '@aws-lambda-powertools/logger';

/**
 * Turns a record into one line a person reads, or leaves it as JSON (undefined). Only the local runtime sets one,
 * for a terminal; in AWS every record stays JSON for CloudWatch Logs Insights.
 */
export type LogLineFormat = (attributes: Readonly<Record<string, unknown>>) => string | undefined;

class ServiceLogger extends Logger {
  lineFormat: LogLineFormat | undefined;

  protected override printLog(logLevel: number, log: LogItem): void {
    const line = this.lineFormat?.(log.getAttributes());
    if (line === undefined) return super.printLog(logLevel, log);
    // Powertools' level numbers: WARN is 16 and above, which goes to stderr as its JSON would.
    (logLevel >= 16 ? process.stderr : process.stdout).write(`${line}\n`);
  }
}

/**
 * The one structured logger. Nothing that is secret goes in: no tokens, keys, codes or decrypted bodies, only ids,
 * codes and reasons.
 */
export const logger = new ServiceLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'mfa-authorization',
});
