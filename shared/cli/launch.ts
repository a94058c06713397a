import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  buildClis,
  type CliName,
  cliCacheDirectory,
  cliNames,
  isCurrent,
  readBuildManifest,
} from '#shared/cli/build';

/**
 * What `npm run call|app|authenticator|admin` runs (through shared/cli/run.sh), bundled on its own at
 * node_modules/.cache/mfa-cli/launch.mjs: it runs the named CLI's bundle, building the bundles first when there are
 * none or a source has changed since. `--build` only builds (the `prepare` script).
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const [name] = process.argv.slice(2);

if (name !== '--build' && !(cliNames as readonly string[]).includes(name ?? '')) {
  console.error(`Usage: launch.mjs <${cliNames.join('|')}> [arguments] | --build`);
  process.exit(2);
}

let key: string;
try {
  const manifest = await readBuildManifest(root);
  if (name !== '--build' && manifest && (await isCurrent(root, manifest))) key = manifest.key;
  else {
    // A build takes seconds (far longer right after a heavy job such as `cdk synth`): say why this call waits, on
    // stderr alone, so that a pipe reading stdout sees only the CLI's own output.
    if (name !== '--build') {
      console.error(manifest ? 'rebuilding the CLI after source changes…' : 'building the CLI (first run)…');
    }
    key = (await buildClis(root)).key;
  }
} catch (error) {
  // esbuild has printed what it could not build; anything else failed on its own.
  const reason = error instanceof Error && !('errors' in error) ? `: ${error.message}` : ' (see above)';
  console.error(`The CLIs could not be built${reason}`);
  process.exit(1);
}

if (name !== '--build') {
  // The CLI reads its own arguments, as if it had been started directly.
  process.argv.splice(2, 1);
  await import(pathToFileURL(join(cliCacheDirectory(root), key, `${name as CliName}.mjs`)).href);
}
