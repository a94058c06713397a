import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const directoryMode = 0o700;
const othersBits = 0o077;

/**
 * Makes the data directory this user's alone: created 0700, and everything in it that its group or other users may
 * use tightened to the owner's bits only (0755 → 0700, 0644 → 0600), and this process's umask set so that what the store writes later (new LevelDB tables,
 * logs, runtime.json) is created so. The embedded store takes any credentials and `runtime.json` names its port: a
 * file another local user could read or write would let them read every tenant's data or add an organization key.
 *
 * @returns the paths that were looser and have been tightened, for the caller to report.
 */
export async function makeDataDirectoryPrivate(dataDir: string): Promise<string[]> {
  try {
    process.umask(0o077);
  } catch {
    // Worker threads cannot change the umask; the directory's own mode still keeps other users out.
  }
  await mkdir(dataDir, { recursive: true, mode: directoryMode });
  const tightened: string[] = [];
  const pending = [dataDir];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stats = await lstat(path);
    // A symbolic link's own mode means nothing, and what it points to is not this directory's to change.
    if (stats.isSymbolicLink()) continue;
    if ((stats.mode & othersBits) !== 0) {
      await chmod(path, stats.mode & 0o700);
      tightened.push(path);
    }
    if (stats.isDirectory()) {
      for (const entry of await readdir(path)) pending.push(join(path, entry));
    }
  }
  return tightened;
}
