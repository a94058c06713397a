import { fileURLToPath } from 'node:url';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { consoleRoute, httpRoutes, webAppRoute } from '#infra/routes';

/**
 * This package's root, where the functions' sources, esbuild and the lock file are: bundling runs there whatever the
 * working directory of the app that builds the service.
 */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** The AWS SDK's credential chain, and what the handler bundles take in its place (shared/aws/lambda-credentials.ts). */
export const credentialChainPackage = '@aws-sdk/credential-provider-node';
export const lambdaCredentials = './shared/aws/lambda-credentials.ts';

/** How every handler is bundled; the bundle test and the bench build them so. */
export const handlerBundling = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  // The AWS SDK goes into the bundle rather than coming from the runtime's copy: one minified, tree-shaken file loads
  // in half the time of the SDK's hundreds of modules (the bench's cold start: about 90 ms instead of 150), and the
  // functions run the SDK versions package.json pins and the tests ran, not whatever the runtime ships that day.
  externalModules: [] as string[],
  // CommonJS dependencies inside an ESM bundle still call require().
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  // Lambda gives a function its credentials in the environment: the rest of the SDK's chain stays out of the bundle.
  esbuildArgs: { [`--alias:${credentialChainPackage}`]: lambdaCredentials },
  // Warnings and errors only: esbuild's size line for each of the stack's bundles would fill `cdk synth --quiet`.
  logLevel: LogLevel.WARNING,
} satisfies BundlingOptions;

/** What an afterBundling hook runs, given the project's directory and the bundle's. */
type BesideBundle = (inputDir: string, outputDir: string) => string[];

/** A library as a file of its own beside the bundle, built by the local esbuild as the bundle itself is. */
function libraryFile(entry: string, file: string): BesideBundle {
  return (inputDir, outputDir) => [
    `cd "${inputDir}" && node_modules/.bin/esbuild ${entry} --bundle --platform=node --format=esm --target=${handlerBundling.target} --minify --log-level=warning "--banner:js=${handlerBundling.banner}" --outfile="${outputDir}/${file}"`,
  ];
}

/** The bundling of a function that carries files beside its bundle. */
function withFilesBeside(...files: BesideBundle[]) {
  return {
    ...handlerBundling,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        files.flatMap((file) => file(inputDir, outputDir)),
    },
  } satisfies BundlingOptions;
}

/** The file name of the X-Ray tracer beside every bundle, as `TRACER_MODULE` gives it to the function. */
export const tracerModuleFile = 'tracing.mjs';

/**
 * Every function carries the X-Ray tracer (about 125 KB of CommonJS that does not tree-shake) as a file of its own
 * beside its bundle, which it loads on its first invocation when traced (`TRACER_MODULE`, shared/tracing.ts): the
 * bundles stay within their budget, and the local runtime, the tests and the bench never load it.
 */
const tracerFile = libraryFile('shared/tracing-library.ts', tracerModuleFile);

/**
 * The web apps' function also carries their builds (the web authenticator's, the console's pages), beside its bundle,
 * where it reads them from: each built first if its sources changed (`--if-stale`), so that `cdk synth` and
 * `cdk deploy` never ship a stale or missing app.
 */
const webAppFiles: BesideBundle = (inputDir, outputDir) =>
  ['authenticator', 'console'].flatMap((app) => [
    `cd "${inputDir}" && node_modules/.bin/tsx web/${app}/build.ts --if-stale`,
    `cp -R "${inputDir}/.tmp/web/${app}" "${outputDir}/${app}"`,
  ]);

/** The file name of the WebAuthn library beside a bundle, as `WEBAUTHN_MODULE` gives it to the function. */
export const webAuthnModuleFile = 'webauthn.mjs';

/**
 * Functions that verify passkeys carry the WebAuthn library (about 400 KB) bundled as a file of its own beside theirs,
 * which they load on first use (`WEBAUTHN_MODULE`): an answer from a device without a passkey never pays for it.
 */
const webAuthnFile = libraryFile('shared/webauthn/library.ts', webAuthnModuleFile);

const tracedBundling = withFilesBeside(tracerFile);
const webAppBundling = withFilesBeside(tracerFile, webAppFiles);
const webAuthnBundling = withFilesBeside(tracerFile, webAuthnFile);

/**
 * The bundling of one function under functions/: the same for all of them, each with its own AWS SDK inside the
 * 500 KB budget, updating a directory's PKCS#12 parser included, and the tracer beside it; the web authenticator's
 * with the app's files too, and those that verify passkeys with the WebAuthn library.
 */
export function bundlingFor(handler: string): typeof handlerBundling & Pick<BundlingOptions, 'commandHooks'> {
  if (handler === webAppRoute.handler) return webAppBundling;
  return [...httpRoutes, consoleRoute].some((route) => route.handler === handler && route.access.webAuthn)
    ? webAuthnBundling
    : tracedBundling;
}
