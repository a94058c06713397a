import { build } from 'esbuild';
import { bundlingFor, credentialChainPackage, lambdaCredentials } from '#infra/function-bundling';
import {
  consoleAuditRoute,
  consoleRoute,
  fallbackRoute,
  httpRoutes,
  pushConsumers,
  webAppRoute,
  webhookConsumers,
} from '#infra/routes';

/** Every function the stack deploys, by its module under functions/. */
export const bundledHandlers = [
  ...new Set([
    ...httpRoutes.map((route) => route.handler),
    fallbackRoute.handler,
    webAppRoute.handler,
    consoleRoute.handler,
    consoleAuditRoute.handler,
    ...webhookConsumers.map((consumer) => consumer.handler),
    ...pushConsumers.map((consumer) => consumer.handler),
    'deploy/api-key-ring',
    'deploy/api-key-schedule',
    'deploy/origin-secrets',
    'deploy/key-policy',
  ]),
];

/** A handler's bundle file name in the output directory, without its `.mjs`. */
export const bundleName = (handler: string) => handler.replaceAll('/', '__');

/** Bundles the handlers into `outdir` as NodejsFunction asks esbuild to: one run per distinct bundling. */
export async function buildHandlerBundles(outdir: string, handlers: readonly string[] = bundledHandlers) {
  const groups = new Map<ReturnType<typeof bundlingFor>, string[]>();
  for (const handler of handlers) {
    const bundling = bundlingFor(handler);
    groups.set(bundling, [...(groups.get(bundling) ?? []), handler]);
  }
  for (const [bundling, members] of groups) {
    await build({
      entryPoints: Object.fromEntries(
        members.map((handler) => [bundleName(handler), `functions/${handler}.ts`]),
      ),
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: bundling.target,
      minify: bundling.minify,
      sourcemap: bundling.sourceMap,
      mainFields: bundling.mainFields,
      external: bundling.externalModules,
      banner: { js: bundling.banner },
      alias: { [credentialChainPackage]: lambdaCredentials },
      logLevel: 'silent',
    });
  }
}
