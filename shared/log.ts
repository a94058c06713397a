import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger. Nothing that is secret goes in: no tokens, keys, codes or decrypted bodies, only ids,
 * codes and reasons.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'mfa-authorization' });
