import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { StateStore } from '#shared/authenticator/host';
import { type AuthenticatorState, AuthenticatorStateError } from '#shared/authenticator/state';

/** The CLI's state store: one device in one 0600 JSON file. */
export function fileStateStore(path: string): StateStore<AuthenticatorState> {
  return {
    async list() {
      try {
        return [await readAuthenticatorState(path)];
      } catch (error) {
        if (error instanceof AuthenticatorStateError && error.missing) return [];
        throw error;
      }
    },
    put: (state) => writeAuthenticatorState(path, state),
    async delete(deviceId) {
      const [stored] = await this.list();
      if (stored?.deviceId === deviceId) await rm(path, { force: true });
    },
  };
}

export async function readAuthenticatorState(path: string): Promise<AuthenticatorState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AuthenticatorStateError(`No authenticator state at ${path}: link a device first`, {
        cause,
        missing: true,
      });
    }
    throw cause;
  }
  const state = JSON.parse(text) as Partial<AuthenticatorState>;
  if (state.version !== 1 || !state.deviceId || !state.privateKeyPem || !state.baseUrl) {
    throw new AuthenticatorStateError(`${path} is not an authenticator state file`);
  }
  return state as AuthenticatorState;
}

/** Replaces the file in one step (write beside it, then rename), so a crash never leaves half a key behind. */
export async function writeAuthenticatorState(path: string, state: AuthenticatorState): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
