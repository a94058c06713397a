import type { StateStore } from '#shared/authenticator/index';
import type { WebDeviceState } from './device-state.ts';

const databaseName = 'web-authenticator';
const storeName = 'devices';
/** Set once a device was linked: if IndexedDB is then empty, the browser evicted the keys, and the page says so. */
const linkedMarker = 'web-authenticator-linked';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(databaseName, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(storeName, { keyPath: 'deviceId' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not open'));
  });
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const database = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = database.transaction(storeName, mode);
      const request = work(transaction.objectStore(storeName));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB transaction failed'));
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally {
    database.close();
  }
}

/**
 * The browser's StateStore: each linked device in IndexedDB under its device id, its CryptoKeys stored as they are
 * (structured clone keeps them non-extractable).
 */
export const indexedDbStateStore: StateStore<WebDeviceState> = {
  list: () => run('readonly', (store) => store.getAll() as IDBRequest<WebDeviceState[]>),
  async put(state) {
    await run('readwrite', (store) => store.put(state));
    localStorage.setItem(linkedMarker, '1');
  },
  async delete(deviceId) {
    await run('readwrite', (store) => store.delete(deviceId));
  },
};

/** Whether this browser once held a linked device. */
export const everLinked = (): boolean => localStorage.getItem(linkedMarker) === '1';

/** Forgets that a device was ever linked, once the user has been told its keys are gone or unlinked the last one. */
export const forgetLinked = (): void => localStorage.removeItem(linkedMarker);

/** Set once the person dismissed the warning that the browser may delete the page's keys. */
const storageNoteMarker = 'web-authenticator-storage-note-dismissed';

export const storageNoteDismissed = (): boolean => localStorage.getItem(storageNoteMarker) === '1';

export const dismissStorageNote = (): void => localStorage.setItem(storageNoteMarker, '1');

/** A state whose key survived: the CryptoKeys are there (a browser that evicted storage leaves nothing, or less). */
export const hasKey = (state: WebDeviceState): boolean =>
  state.key?.signing instanceof CryptoKey && state.key.decryption instanceof CryptoKey;
