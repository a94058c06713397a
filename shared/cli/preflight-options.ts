import type { ParseArgsConfig } from 'node:util';

/**
 * The preflight's options besides --region and --json. Each takes the value of the deploy's setting of the same name
 * (`--existing-table-name` for `-c existingTableName`), but for --qualifier (cdk's), --deployer-role (the role given
 * to `cdk deploy --role-arn`, if any) and --edge.
 */
export const preflightOptions = {
  edge: { type: 'string' },
  qualifier: { type: 'string' },
  'login-reserved-concurrency': { type: 'string' },
  'key-administrators': { type: 'string' },
  'deployer-role': { type: 'string' },
  'deployer-roles': { type: 'string' },
  'domain-name': { type: 'string' },
  'certificate-arn': { type: 'string' },
  'existing-table-name': { type: 'string' },
  'existing-audit-table-name': { type: 'string' },
  'existing-api-key-secret-arn': { type: 'string' },
  'existing-hash-key-secret-arn': { type: 'string' },
  'existing-vapid-keys-secret-arn': { type: 'string' },
  'existing-key-arn': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export type PreflightValues = { readonly [K in keyof typeof preflightOptions]?: string } & {
  readonly region?: string;
  readonly json?: boolean;
};
