import { fileURLToPath } from 'node:url';
import { buildClis, isCurrent, readBuildManifest } from '#shared/cli/build';

/**
 * Vitest's global setup: the CLI bundles built from today's sources before any test runs one, so that no test's
 * first call meets the launcher's "rebuilding the CLI" note on stderr after a source was edited.
 */
export async function setup(): Promise<void> {
  const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
  const manifest = await readBuildManifest(projectRoot);
  if (!manifest || !(await isCurrent(projectRoot, manifest))) await buildClis(projectRoot);
}
