import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withFolderLock } from '#infra/assembly/folder-lock';

const run = promisify(execFile);

/** The Node major of the functions' runtime (`nodejs24.x`), which the npm registry carries as a package. */
export const lambdaNodeMajor = 24;
/** Lambda's runtime interface client for Node, built against that Node. */
export const runtimeInterfaceClient = 'aws-lambda-ric@4.0.2';

/** How an execution environment is started: which Node, and which runtime client it runs. */
export interface LambdaNode {
  /** The Node binary. */
  readonly node: string;
  /** Its version, `v24.…`. */
  readonly version: string;
  /** The runtime client's entry point. */
  readonly client: string;
  /** `aws-lambda-ric 4.0.2`, or `built-in` where it could not be built. */
  readonly clientName: string;
  /** What could not be prepared, and what is used instead: for the banner. */
  readonly notes: readonly string[];
}

/** Where the runtime is kept between runs: outside node_modules, which `npm ci` deletes. */
export function lambdaRuntimeCache(): string {
  return (
    process.env.LAMBDA_RUNTIME_CACHE ??
    join(homedir(), '.cache', 'mfa-authorization-service', 'lambda-runtime')
  );
}

/**
 * Lambda's Node and runtime client, installed into the cache on first use: Node from the npm registry (the package
 * `node-<platform>-<arch>`, never a project dependency, which would run every npm script on it), aws-lambda-ric built
 * against that Node's own headers (a few minutes, once). Where either cannot be had, the machine's Node, or the
 * project's own runtime client, is used instead, and the notes say so.
 */
export async function prepareLambdaNode(log: (line: string) => void = () => undefined): Promise<LambdaNode> {
  const cache = lambdaRuntimeCache();
  await mkdir(cache, { recursive: true });
  return withFolderLock(join(cache, '.lock'), async () => {
    const notes: string[] = [];
    let node = await installedNode(cache, log).catch((error: unknown) => {
      notes.push(
        `Node ${lambdaNodeMajor} could not be installed (${firstLine(error)}): the functions run on this machine's Node ${process.version}`,
      );
      return undefined;
    });
    node ??= { binary: process.execPath, headers: undefined };
    const version = (await run(node.binary, ['--version'])).stdout.trim();
    const ric = node.headers
      ? await installedRuntimeClient(cache, node.binary, node.headers, log).catch((error: unknown) => {
          notes.push(
            `${runtimeInterfaceClient} could not be built (${firstLine(error)}): the project's own runtime client runs the functions`,
          );
          return undefined;
        })
      : undefined;
    if (ric)
      return {
        node: node.binary,
        version,
        client: ric,
        clientName: runtimeInterfaceClient.replace('@', ' '),
        notes,
      };
    return { node: node.binary, version, client: await builtInClient(cache), clientName: 'built-in', notes };
  });
}

async function installedNode(cache: string, log: (line: string) => void) {
  const folder = join(cache, `node${lambdaNodeMajor}`);
  const packageName = `node-${process.platform}-${process.arch}`;
  const home = join(folder, 'node_modules', packageName);
  const binary = join(home, 'bin', 'node');
  if (!existsSync(binary)) {
    log(`Installing Node ${lambdaNodeMajor} (${packageName}) into ${folder}: first use only`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'package.json'), '{"name":"lambda-node","private":true}\n');
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', `${packageName}@${lambdaNodeMajor}`],
      {
        cwd: folder,
        timeout: 300_000,
      },
    );
  }
  return { binary, headers: existsSync(join(home, 'include', 'node')) ? home : undefined };
}

async function installedRuntimeClient(
  cache: string,
  node: string,
  nodeDir: string,
  log: (line: string) => void,
) {
  const folder = join(cache, 'ric');
  const entry = join(folder, 'node_modules', 'aws-lambda-ric', 'index.mjs');
  const built = join(folder, 'node_modules', 'aws-lambda-ric', 'rapid-client.node');
  const marker = join(folder, 'built-for');
  const version = (await run(node, ['--version'])).stdout.trim();
  if (existsSync(entry) && existsSync(built) && (await readFile(marker, 'utf8').catch(() => '')) === version)
    return entry;
  log(`Building ${runtimeInterfaceClient} for Node ${version} into ${folder}: first use only, a few minutes`);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'lambda-ric', private: true, allowScripts: { 'aws-lambda-ric': true } })}\n`,
  );
  const binaries = join(node, '..');
  await run('npm', ['install', '--no-audit', '--no-fund', `--nodedir=${nodeDir}`, runtimeInterfaceClient], {
    cwd: folder,
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PATH: `${binaries}:${process.env.PATH ?? ''}` },
  });
  if (!existsSync(built)) throw new Error('its native client was not built');
  await writeFile(marker, version);
  return entry;
}

/** This machine's Node with the project's own runtime client: what runs where Lambda's runtime cannot be had. */
export async function machineLambdaNode(notes: readonly string[] = []): Promise<LambdaNode> {
  const cache = lambdaRuntimeCache();
  await mkdir(cache, { recursive: true });
  return {
    node: process.execPath,
    version: process.version,
    client: await builtInClient(cache),
    clientName: 'built-in',
    notes,
  };
}

/** The project's runtime client, bundled into the cache so that any Node runs it. */
async function builtInClient(cache: string): Promise<string> {
  const source = fileURLToPath(new URL('./runtime-client.ts', import.meta.url));
  const output = join(cache, 'runtime-client.mjs');
  const fresh = await Promise.all([stat(source), stat(output)]).then(
    ([input, bundle]) => bundle.mtimeMs >= input.mtimeMs,
    () => false,
  );
  if (!fresh) {
    const { build } = await import('esbuild');
    await build({
      entryPoints: [source],
      outfile: output,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
  }
  return output;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
