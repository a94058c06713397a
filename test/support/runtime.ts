import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRuntime, startLocalRuntime } from '#infra/local/runtime';
import { ApiClient, type ApiClientOptions } from '#shared/client/api-client';

export interface TestRuntime {
  readonly runtime: LocalRuntime;
  readonly baseUrl: string;
  readonly organizationId: string;
  /** `org:<id>` of the demo organization. */
  readonly issuer: string;
  readonly organizationKeyPem: string;
  /** A client of the demo organization; options override the defaults. */
  client(options?: Partial<ApiClientOptions>): ApiClient;
  stop(): Promise<void>;
}

/** Whether the tests run against the synthesized cloud assembly (`npm run test:assembly`) rather than the sources. */
export const testsRunAssembly = process.env.TEST_RUNTIME === 'assembly';

/**
 * Starts the local runtime exactly as `npm start` does (`npm start -- --assembly` under `npm run test:assembly`), on a
 * free port with a data directory of its own. The store modules read the environment it sets, so a test imports them
 * only after this resolves.
 */
export async function startTestRuntime(options: { dataDir?: string } = {}): Promise<TestRuntime> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mfa-test-')));
  const runtime = testsRunAssembly
    ? await (await import('#infra/assembly/runtime')).startAssemblyRuntime({ dataDir, port: 0 })
    : await startLocalRuntime({ dataDir, port: 0, logLevel: 'SILENT' });
  const organizationKeyPem = await readFile(runtime.organization.privateKeyPath, 'utf8');
  const issuer = `org:${runtime.organization.organizationId}`;
  return {
    runtime,
    baseUrl: runtime.baseUrl,
    organizationId: runtime.organization.organizationId,
    issuer,
    organizationKeyPem,
    client: (overrides = {}) =>
      new ApiClient({ baseUrl: runtime.baseUrl, issuer, privateKeyPem: organizationKeyPem, ...overrides }),
    async stop() {
      await runtime.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
