import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One preparation at a time across processes (parallel test files, two terminals): a folder as the lock, taken by
 * whoever makes it, holding its owner's pid. A lock whose owner has gone (killed while holding it) is taken over.
 */
export async function withFolderLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lock), { recursive: true });
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await ownerHasGone(lock)) await rm(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function ownerHasGone(lock: string): Promise<boolean> {
  const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
  // A lock just made has no pid yet: its owner is alive.
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
