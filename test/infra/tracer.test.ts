import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundlingFor } from '#infra/function-bundling';
import { announcementSweep, consoleRoute, httpRoutes, webAppRoute } from '#infra/routes';
import { AuthorizationServiceStack } from '#infra/stack';
import { bundledHandlers } from '#test/support/handler-bundles';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

let functions: [string, Resource][];

beforeAll(() => {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` in CI bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const resources = Template.fromStack(new AuthorizationServiceStack(app, 'Test')).toJSON()
    .Resources as Record<string, Resource>;
  // The service's own functions, not the CDK provider framework's.
  functions = Object.entries(resources).filter(
    ([, resource]) =>
      resource.Type === 'AWS::Lambda::Function' && resource.Properties.Handler === 'index.handler',
  );
});

const tracerCommand = expect.stringMatching(
  /esbuild shared\/tracing-library\.ts --bundle .* --outfile="out\/tracing\.mjs"$/,
);
const webAppCommands = [
  expect.stringContaining('web/authenticator/build.ts'),
  expect.stringContaining('"out/authenticator"'),
  expect.stringContaining('web/console/build.ts'),
  expect.stringContaining('"out/console"'),
];
const webAuthnCommand = expect.stringMatching(
  /esbuild shared\/webauthn\/library\.ts --bundle .* --outfile="out\/webauthn\.mjs"$/,
);

describe('the X-Ray tracer', () => {
  it('is named to every function of the service by TRACER_MODULE, beside its bundle, and each runs traced', () => {
    expect(functions.length).toBeGreaterThan(50);
    const untraced = functions
      .filter(([, fn]) => {
        const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables;
        return (
          variables?.TRACER_MODULE !== './tracing.mjs' ||
          (fn.Properties.TracingConfig as { Mode?: string } | undefined)?.Mode !== 'Active'
        );
      })
      .map(([id]) => id);
    expect(untraced).toEqual([]);
  });

  it('is built beside every bundle, with the web app and the WebAuthn library beside those that carry them', () => {
    const handlers = [...bundledHandlers, announcementSweep.handler];
    const webAuthn = new Set(
      [...httpRoutes, consoleRoute].filter((route) => route.access.webAuthn).map((route) => route.handler),
    );
    expect(webAuthn.size).toBeGreaterThan(0);
    for (const handler of handlers) {
      const commands = bundlingFor(handler).commandHooks?.afterBundling('in', 'out');
      const expected = [
        tracerCommand,
        ...(handler === webAppRoute.handler ? webAppCommands : []),
        ...(webAuthn.has(handler) ? [webAuthnCommand] : []),
      ];
      expect({ handler, commands }).toEqual({ handler, commands: expected });
    }
  });
});
