import {
  type ClientKey,
  clientKeyFromPem,
  createDeviceKey,
  generatePrivateKeyPem,
  openDeviceKey,
  type StoredDeviceKey,
} from '#shared/client/client-key';
import type { AuthenticatorState, LinkedDevice } from '#shared/authenticator/state';

/**
 * What differs between the hosts of the authenticator (the CLI, a browser page) and each supplies: how the device's
 * key is made and kept, and where the state lives. Everything else in this folder runs unchanged in both.
 */

/** How a host makes and keeps device keys; `S` is the host's state, a linked device plus what it keeps of the key. */
export interface DeviceKeys<S extends LinkedDevice> {
  /** Makes the key pair of a device being linked. `kept` joins the device's state; its private half never leaves. */
  create(
    modulusLength: number,
  ): Promise<{ readonly key: ClientKey; readonly kept: Omit<S, keyof LinkedDevice> }>;
  /** The key of a linked device, out of its state. */
  open(state: S): ClientKey;
}

/** Where a host keeps its linked devices: the CLI in a 0600 file, a browser in IndexedDB. */
export interface StateStore<S extends LinkedDevice> {
  /** Every device linked on this host (the CLI's file holds one). */
  list(): Promise<S[]>;
  /** Keeps a device's state, replacing the one with the same device id. */
  put(state: S): Promise<void>;
  /** Forgets a device, e.g. once it unlinked. */
  delete(deviceId: string): Promise<void>;
}

export interface AuthenticatorHost<S extends LinkedDevice> {
  readonly keys: DeviceKeys<S>;
  readonly states: StateStore<S>;
  /** The fetch to reach the service with; the global one when absent. */
  readonly fetch?: typeof fetch;
}

/** The CLI's keys: the private key in PKCS#8 PEM, inside the state file. */
export const pemDeviceKeys: DeviceKeys<AuthenticatorState> = {
  async create(modulusLength) {
    const privateKeyPem = await generatePrivateKeyPem(modulusLength);
    return { key: clientKeyFromPem(privateKeyPem), kept: { privateKeyPem } };
  },
  open: (state) => clientKeyFromPem(state.privateKeyPem),
};

/** A browser's state: the device with its non-extractable key pair, as IndexedDB stores it. */
export interface BrowserAuthenticatorState extends LinkedDevice {
  readonly key: StoredDeviceKey;
}

/** A browser's keys: two non-extractable CryptoKeys (signing, decryption) kept in the state, never exported. */
export const browserDeviceKeys: DeviceKeys<BrowserAuthenticatorState> = {
  async create(modulusLength) {
    const key = await createDeviceKey(modulusLength);
    return { key: openDeviceKey(key), kept: { key } };
  },
  open: (state) => openDeviceKey(state.key),
};
