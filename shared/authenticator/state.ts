import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import type { DeviceState } from '#shared/authenticator/evaluate';

/** How the device is set up: what `evaluate` is told about it besides the time. */
export type DeviceConfiguration = Omit<DeviceState, 'now'>;

/** Everything a linked authenticator keeps between runs. The file holds its private key: it is written 0600. */
export interface AuthenticatorState {
  readonly version: 1;
  readonly baseUrl: string;
  readonly deviceId: string;
  readonly directoryId: string;
  readonly privateKeyPem: string;
  readonly configuration: DeviceConfiguration;
  /** Per service id, the pins sent with the last answers, oldest first. */
  readonly servicePins: Readonly<Record<string, readonly string[]>>;
}

/** A phone fresh from setup: a PIN code and a fingerprint, every other method known but not set. */
export const defaultConfiguration: DeviceConfiguration = {
  methods: {
    wearables: { set: false },
    geofencing: { set: false },
    locations: { set: false },
    pin_code: { set: true },
    circle_code: { set: false },
    face: { set: false },
    fingerprint: { set: true },
  },
};

export class AuthenticatorStateError extends Error {
  override readonly name = 'AuthenticatorStateError';
}

export async function readAuthenticatorState(path: string): Promise<AuthenticatorState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AuthenticatorStateError(`No authenticator state at ${path}: link a device first`, { cause });
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

/** What `evaluate` needs at `now`. */
export function deviceStateAt(configuration: DeviceConfiguration, now: Date): DeviceState {
  return { ...configuration, now };
}
