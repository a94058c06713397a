import { createHash } from 'node:crypto';

/** The account and region a local deployment pretends to be in: those the local engines answer for. */
export const localAccount = '000000000000';
export const localRegion = 'us-east-1';

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** A name CloudFormation generates for a resource without one: the stack, the logical id, a stable suffix. */
export function generatedName(stackName: string, logicalId: string, maxLength = 64): string {
  const suffix = digest(`${stackName}/${logicalId}`).slice(0, 12).toUpperCase();
  const head = `${stackName}-${logicalId}`.slice(0, maxLength - suffix.length - 1);
  return `${head}-${suffix}`;
}

/** An HTTP API's id: ten lowercase characters, as API Gateway makes them. */
export function apiId(stackName: string, logicalId: string): string {
  return digest(`api/${stackName}/${logicalId}`).slice(0, 10);
}

export const functionArn = (name: string) => `arn:aws:lambda:${localRegion}:${localAccount}:function:${name}`;

/** A secret's ARN ends in six characters Secrets Manager adds to its name. */
export const secretArn = (name: string) =>
  `arn:aws:secretsmanager:${localRegion}:${localAccount}:secret:${name}-${digest(name).slice(0, 6)}`;

/** The ARN of any other resource, good enough to be named and compared. */
export function resourceArn(type: string, name: string): string {
  const service = type.split('::')[1]?.toLowerCase() ?? 'unknown';
  return `arn:aws:${service}:${localRegion}:${localAccount}:${name}`;
}

/** A UUID that stays the same for the same seed, as a deployed resource keeps its id. */
export function stableUuid(seed: string): string {
  const hex = digest(`uuid/${seed}`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
