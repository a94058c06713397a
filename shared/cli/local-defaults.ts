import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The local runtime's base URL unless one is given. */
export function defaultBaseUrl(given?: string): string {
  return given ?? process.env.BASE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
}

export function defaultDataDir(given?: string): string {
  return given ?? process.env.DATA_DIR ?? '.data';
}

/** The demo organization `npm start` writes into its data directory; undefined until it has run once. */
export async function readDemoOrganization(
  dataDir: string,
): Promise<{ organizationId: string; privateKeyPath: string } | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'demo-organization.json'), 'utf8')) as {
      organizationId: string;
      privateKeyPath: string;
    };
  } catch {
    return undefined;
  }
}
