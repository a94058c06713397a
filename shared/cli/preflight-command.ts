import { awsUnreachable } from '#shared/cli/aws-unreachable';
import { refusal, usageFailure } from '#shared/cli/common';
import type { PreflightValues } from '#shared/cli/preflight-options';
import { defaultQualifier } from '#shared/preflight/bootstrap';
import { requiredBootstrapVersion } from '#shared/preflight/bootstrap-version';
import type { CheckResult, CheckStatus } from '#shared/preflight/check-result';
import { type PreflightClients, type PreflightSettings, runPreflight } from '#shared/preflight/preflight';

/** How long each check waits for AWS before it says it cannot check. */
export const checkTimeoutMs = 5000;

export interface PreflightIo {
  /** The command's usage, printed after a bad option. */
  readonly usage: string;
  readonly clients: (region: string) => Promise<PreflightClients & { destroy?(): void }>;
  readonly print: (line: string) => void;
  /** Where `cdk synth` writes the assembly whose manifest says which bootstrap version it needs. */
  readonly assemblyDirectory?: string;
  readonly timeoutMs?: number;
}

const marks: Record<CheckStatus, string> = { ok: 'ok', fix: 'fix', 'cannot-check': 'cannot check' };

/** One check in one line: its mark, what it found, and for one that is not ok, what to do. */
export function resultLine(result: CheckResult): string {
  const action = result.action ? ` → ${result.action}` : '';
  return `${marks[result.status].padEnd(12)}  ${result.check}: ${result.found}${action}`;
}

/**
 * `admin preflight`: prints every check's line (or, with --json, the results), then refuses (exit 1) when any needs
 * a fix. AWS out of reach or no credentials is exit 3, in one line.
 */
export async function preflightCommand(values: PreflightValues, io: PreflightIo): Promise<void> {
  const settings = preflightSettings(values, io.usage, {
    requiredBootstrapVersion: await requiredBootstrapVersion(io.assemblyDirectory ?? 'cdk.out'),
    timeoutMs: io.timeoutMs ?? checkTimeoutMs,
  });
  const clients = await io.clients(settings.region);
  let results: CheckResult[];
  try {
    results = await runPreflight(clients, settings);
  } catch (error) {
    throw awsUnreachable(error) ?? error;
  } finally {
    clients.destroy?.();
  }
  if (values.json) io.print(JSON.stringify(results, null, 2));
  else results.forEach((result) => io.print(resultLine(result)));
  const fixes = results.filter((result) => result.status === 'fix').length;
  if (fixes) throw refusal(`${fixes} of ${results.length} checks need a fix before the first deploy.`);
}

/** A comma-separated list of ARNs, as `-c keyAdministrators` takes it. */
function arns(text: string | undefined): string[] | undefined {
  return text?.split(',').map((arn) => arn.trim());
}

/** The settings the options describe; bad usage, with `usage`, for options the deploy would refuse too. */
function preflightSettings(
  values: PreflightValues,
  usage: string,
  found: Pick<PreflightSettings, 'requiredBootstrapVersion' | 'timeoutMs'>,
): PreflightSettings {
  const fail = (message: string): never => {
    throw usageFailure(message, usage);
  };
  const region = values.region ?? fail('preflight needs --region: the region you will deploy to.');
  const edge = values.edge ?? 'waf';
  if (edge !== 'waf' && edge !== 'none') fail(`--edge must be waf or none, not ${edge}.`);
  const qualifier = values.qualifier ?? defaultQualifier;
  if (!/^[A-Za-z0-9_-]{1,10}$/.test(qualifier))
    fail(
      '--qualifier must be at most 10 letters, digits, hyphens or underscores, as cdk bootstrap takes it.',
    );
  const reserved = values['login-reserved-concurrency'];
  if (reserved !== undefined && !/^[1-9]\d*$/.test(reserved))
    fail(`--login-reserved-concurrency must be a whole number above 0, not ${reserved}.`);
  const domainName = values['domain-name'];
  const certificateArn = values['certificate-arn'];
  if (Boolean(domainName) !== Boolean(certificateArn))
    fail('--domain-name and --certificate-arn go together, as -c domainName and -c certificateArn do.');
  return {
    region,
    edge: edge === 'waf',
    qualifier,
    requiredBootstrapVersion: found.requiredBootstrapVersion,
    ...(reserved === undefined ? {} : { loginReservedConcurrency: Number(reserved) }),
    ...(values['key-administrators'] ? { keyAdministrators: arns(values['key-administrators']) } : {}),
    ...(values['deployer-role'] ? { deployerRole: values['deployer-role'] } : {}),
    ...(values['deployer-roles'] ? { deployerRoles: arns(values['deployer-roles']) } : {}),
    existing: {
      tableName: values['existing-table-name'],
      auditTableName: values['existing-audit-table-name'],
      apiKeySecretArn: values['existing-api-key-secret-arn'],
      hashKeySecretArn: values['existing-hash-key-secret-arn'],
      vapidKeysSecretArn: values['existing-vapid-keys-secret-arn'],
      keyArn: values['existing-key-arn'],
    },
    ...(domainName && certificateArn ? { certificate: { arn: certificateArn, domainName } } : {}),
    timeoutMs: found.timeoutMs,
  };
}
