import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';

/** The bootstrap version a deploy needs, and what says so. */
export interface RequiredBootstrapVersion {
  readonly version: number;
  readonly source: string;
}

/** What CDK's default synthesizer, which this project's stacks use, documents as its minimum. */
export const documentedBootstrapVersion: RequiredBootstrapVersion = {
  version: 6,
  source: "CDK's default synthesizer",
};

const assemblyManifest = v.object({
  artifacts: v.optional(
    v.record(
      v.string(),
      v.object({
        properties: v.optional(v.object({ requiresBootstrapStackVersion: v.optional(v.number()) })),
      }),
    ),
  ),
});

/**
 * The highest version the assembly's stacks and asset manifests require, or undefined when it names none. The lookup
 * role's own requirement is left out: without it the CDK CLI falls back to the deploy role.
 */
export function bootstrapVersionOf(manifest: unknown): number | undefined {
  const parsed = v.safeParse(assemblyManifest, manifest);
  if (!parsed.success) return undefined;
  const versions = Object.values(parsed.output.artifacts ?? {}).flatMap(
    (artifact) => artifact.properties?.requiresBootstrapStackVersion ?? [],
  );
  return versions.length ? Math.max(...versions) : undefined;
}

/**
 * What the project's last synthesized assembly (`cdk synth`, `npm test`, a deploy) requires, read from its
 * manifest in `directory`; without one, the documented minimum.
 */
export async function requiredBootstrapVersion(directory: string): Promise<RequiredBootstrapVersion> {
  const path = join(directory, 'manifest.json');
  const text = await readFile(path, 'utf8').catch(() => undefined);
  let version: number | undefined;
  try {
    version = text === undefined ? undefined : bootstrapVersionOf(JSON.parse(text));
  } catch {
    version = undefined;
  }
  return version === undefined ? documentedBootstrapVersion : { version, source: path };
}
