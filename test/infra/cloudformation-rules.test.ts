import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackFromContext } from '#infra/app-props';
import { AuthorizationServiceStack } from '#infra/stack';

/**
 * CloudFormation's and Lambda's limits, held by the templates `cdk synth` makes: CloudFormation refuses a template
 * past them at deploy, long after a synth that said nothing. The bounds leave room for the routes still to come.
 */
const limits = {
  /** Of CloudFormation's 500 resources a template. */
  resources: 425,
  /** Of CloudFormation's 60 dynamic references (`{{resolve:…}}`) a template. */
  dynamicReferences: 20,
  /** Of CloudFormation's 1 MB a template uploaded through S3, as `cdk synth` writes it. */
  templateBytes: 800 * 1024,
  /** Lambda's limit on a function's environment variables, all of them together. */
  environmentBytes: 4 * 1024,
};

/** Length a reference may resolve to: a table name may be 255 characters, and no ARN or URL here is longer. */
const resolvedReferenceLength = 256;

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

const scratch = '.tmp/cloudformation-rules';

/**
 * The app's templates as `cdk synth` makes them (its defaults, the edge on, and an alarm address): without a region,
 * where the web ACL is in the stack, and in eu-west-1, where it is in a stack of its own in us-east-1. Bundling is
 * skipped; the templates carry the path and asset metadata `cdk synth` writes.
 */
function appTemplates(): Record<string, Record<string, unknown>> {
  mkdirSync(scratch, { recursive: true });
  process.env.TMPDIR = '.tmp';
  const templates: Record<string, Record<string, unknown>> = {};
  for (const region of [undefined, 'eu-west-1']) {
    const app = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        'aws:cdk:enable-path-metadata': true,
        'aws:cdk:enable-asset-metadata': true,
        alarmEmail: 'ops@example.com',
      },
      builtinCloudFormationValidation: false,
    });
    const { stackName, props } = stackFromContext(app);
    new AuthorizationServiceStack(app, stackName, {
      ...props,
      ...(region ? { env: { account: '123456789012', region } } : {}),
    });
    for (const stack of app.node.children.filter((child): child is Stack => child instanceof Stack)) {
      templates[`${stack.stackName}${region ? '' : ' (no region)'}`] = Template.fromStack(stack).toJSON();
    }
  }
  return templates;
}

/** Why cfn-lint cannot run here, if it cannot: a machine without Python may lack it, so its absence skips, loudly. */
const cfnLintMissing = spawnSync('cfn-lint', ['--version']).error
  ? 'cfn-lint is not installed, so the templates were not linted. It is a Python tool, not an npm package: ' +
    'pip install cfn-lint (or pipx install cfn-lint), then run this test again'
  : undefined;
if (cfnLintMissing) console.warn(`Skipping the cfn-lint test: ${cfnLintMissing}.`);

let templates: Record<string, Record<string, unknown>>;
beforeAll(() => {
  templates = appTemplates();
});

/** A template value's longest resolution: strings as they are, every reference at its longest. */
function resolvedLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return String(value).length;
  const [[intrinsic, argument] = []] = Object.entries(value);
  if (intrinsic === 'Fn::Join') {
    const [separator, parts] = argument as [string, unknown[]];
    return parts.reduce<number>(
      (sum, part) => sum + resolvedLength(part),
      separator.length * (parts.length - 1),
    );
  }
  return resolvedReferenceLength;
}

/** A function's environment as Lambda counts it: the variables' JSON, each value at its longest. */
function environmentBytes(fn: Resource): number {
  const variables =
    (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  return Buffer.byteLength(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [name, 'x'.repeat(resolvedLength(value))]),
      ),
    ),
  );
}

describe("CloudFormation's and Lambda's limits", () => {
  it('are checked on the main template without a region, and on the main and edge templates in a region', () => {
    expect(Object.keys(templates).sort()).toEqual([
      'MfaAuthorizationService',
      'MfaAuthorizationService (no region)',
      'MfaAuthorizationService-edge-eu-west-1',
    ]);
  });

  it(`hold each template to ${limits.resources} resources, with room for the routes to come`, () => {
    const counts = Object.fromEntries(
      Object.entries(templates).map(([name, template]) => [
        name,
        Object.keys(template.Resources as object).length,
      ]),
    );
    for (const [name, count] of Object.entries(counts)) {
      expect({ name, count }).toEqual({
        name,
        count: expect.toSatisfy((n: number) => n <= limits.resources),
      });
    }
  });

  it(`hold each template to ${limits.dynamicReferences} dynamic references`, () => {
    for (const [name, template] of Object.entries(templates)) {
      const references = JSON.stringify(template).match(/\{\{resolve:/g)?.length ?? 0;
      expect({ name, references }).toEqual({
        name,
        references: expect.toSatisfy((n: number) => n <= limits.dynamicReferences),
      });
    }
  });

  it(`hold each template, as cdk synth writes it, to ${limits.templateBytes / 1024} KB`, () => {
    for (const [name, template] of Object.entries(templates)) {
      const bytes = Buffer.byteLength(JSON.stringify(template, undefined, 1));
      expect({ name, bytes }).toEqual({
        name,
        bytes: expect.toSatisfy((n: number) => n <= limits.templateBytes),
      });
    }
  });

  it(`hold each function's environment to Lambda's ${limits.environmentBytes / 1024} KB, every reference at its longest`, () => {
    let functions = 0;
    for (const [name, template] of Object.entries(templates)) {
      for (const [id, resource] of Object.entries(template.Resources as Record<string, Resource>)) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        functions += 1;
        const bytes = environmentBytes(resource);
        expect({ name, id, bytes }).toEqual({
          name,
          id,
          bytes: expect.toSatisfy((n: number) => n <= limits.environmentBytes),
        });
      }
    }
    expect(functions).toBeGreaterThan(140);
  });

  it.skipIf(cfnLintMissing !== undefined)(
    `leave cfn-lint no error to report (warnings allowed)${cfnLintMissing ? ` — skipped: ${cfnLintMissing}` : ''}`,
    () => {
      const directory = join(scratch, 'templates');
      rmSync(directory, { recursive: true, force: true });
      mkdirSync(directory, { recursive: true });
      const files = Object.entries(templates).map(([name, template], index) => {
        const file = join(directory, `${index}-${name.replace(/\W+/g, '-')}.template.json`);
        writeFileSync(file, JSON.stringify(template, undefined, 1));
        return file;
      });
      // One run for every template; its exit status also counts warnings, so its findings are read instead.
      const run = spawnSync('cfn-lint', ['--format', 'parseable', '--', ...files], { encoding: 'utf8' });
      expect(run.error).toBeUndefined();
      const findings = run.stdout.split('\n').filter(Boolean);
      const errors = findings.filter((line) => /^E\d+$/.test(line.split(':')[5] ?? ''));
      expect(errors).toEqual([]);
      // Something was linted: a run that read no template reports nothing at all.
      expect(run.stderr).not.toMatch(/Template file not found|Traceback/);
    },
    120_000,
  );
});
