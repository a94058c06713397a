import { build } from 'esbuild';
import { handlerBundling } from '#infra/route-function';
import { fallbackRoute, httpRoutes, webhookConsumers } from '#infra/routes';

/** Every function the stack deploys, by its module under functions/. */
export const bundledHandlers = [
  ...new Set([
    ...httpRoutes.map((route) => route.handler),
    fallbackRoute.handler,
    ...webhookConsumers.map((consumer) => consumer.handler),
    'deploy/api-key-ring',
  ]),
];

/** A handler's bundle file name in the output directory, without its `.mjs`. */
export const bundleName = (handler: string) => handler.replaceAll('/', '__');

/** Bundles the handlers into `outdir` as NodejsFunction asks esbuild to, all in one run. */
export async function buildHandlerBundles(outdir: string, handlers: readonly string[] = bundledHandlers) {
  await build({
    entryPoints: Object.fromEntries(
      handlers.map((handler) => [bundleName(handler), `functions/${handler}.ts`]),
    ),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: handlerBundling.target,
    minify: handlerBundling.minify,
    sourcemap: handlerBundling.sourceMap,
    mainFields: handlerBundling.mainFields,
    external: handlerBundling.externalModules,
    banner: { js: handlerBundling.banner },
    logLevel: 'silent',
  });
}
