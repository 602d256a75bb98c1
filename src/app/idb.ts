// IndexedDB, as functions that run requests in a transaction: the database is opened for each
// call and closed after it (the stores are small and rarely used, and a closed database never
// blocks another tab's upgrade). Used by workspaceStore.ts and symbolStore.ts.

export type StoreRequest = <T>(
  mode: IDBTransactionMode,
  f: (s: IDBObjectStore) => IDBRequest<T>,
) => Promise<T>;

/** Opens `db` at `version`, creating the stores it lacks (each keyed by its keyPath). */
function openDatabase(db: string, version: number, stores: readonly { name: string; keyPath: string }[]) {
  return new Promise<IDBDatabase>((resolve, reject) => {
    if (typeof indexedDB === 'undefined') return reject(new Error('no IndexedDB'));
    const req = indexedDB.open(db, version);
    req.onupgradeneeded = () => {
      for (const s of stores)
        if (!req.result.objectStoreNames.contains(s.name))
          req.result.createObjectStore(s.name, { keyPath: s.keyPath });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error(`${db} is held open by another tab`));
  });
}

/** The store `store` (records keyed by `keyPath`) of database `db`, version 1. */
export function objectStore(db: string, store: string, keyPath: string): StoreRequest {
  return async (mode, f) => {
    const d = await openDatabase(db, 1, [{ name: store, keyPath }]);
    try {
      return await new Promise((resolve, reject) => {
        const req = f(d.transaction(store, mode).objectStore(store));
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    } finally {
      d.close();
    }
  };
}

/**
 * A database of several stores, whose work runs in one transaction over the stores it names: `f`
 * gets the stores and returns what to resolve with once the transaction has completed.
 */
export function database(
  name: string,
  version: number,
  stores: readonly { name: string; keyPath: string }[],
) {
  return async <T>(
    mode: IDBTransactionMode,
    names: readonly string[],
    f: (stores: Record<string, IDBObjectStore>) => Promise<T> | T,
  ): Promise<T> => {
    const d = await openDatabase(name, version, stores);
    try {
      const t = d.transaction([...names], mode);
      const done = new Promise<void>((resolve, reject) => {
        t.oncomplete = () => resolve();
        t.onerror = () => reject(t.error);
        t.onabort = () => reject(t.error ?? new Error('transaction aborted'));
      });
      const out = await f(Object.fromEntries(names.map((n) => [n, t.objectStore(n)])));
      await done;
      return out;
    } finally {
      d.close();
    }
  };
}

/** A request's result, as a promise (inside a transaction that is still active). */
export function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** The databases this page keeps in this browser (the first, of earlier versions, is migrated). */
export const DATABASES = ['flamelens', 'flamelens-workspaces', 'flamelens-symbols'] as const;

/**
 * What a failed storage request means to the person using the page: the browser's storage is
 * full, or this page may keep nothing here (a private window, storage turned off), or the error.
 */
export function storageProblem(e: unknown): string {
  const name = e instanceof DOMException || e instanceof Error ? e.name : '';
  const message = e instanceof Error || e instanceof DOMException ? e.message : String(e);
  if (name === 'QuotaExceededError') return "this browser's storage for this page is full";
  if (name === 'SecurityError' || name === 'InvalidStateError' || /no IndexedDB/.test(message))
    return 'this browser keeps no data for this page (a private window, or site data turned off)';
  return `this browser's storage refused it (${message || name || 'unknown error'})`;
}

/**
 * Deletes everything this page keeps in this browser: its databases (kept workspaces and their
 * files, remembered symbol files) and its settings. The app itself (the offline cache) stays.
 */
export async function resetLocalData(): Promise<void> {
  if (typeof indexedDB !== 'undefined')
    await Promise.all(
      DATABASES.map(
        (name) =>
          new Promise<void>((resolve) => {
            const req = indexedDB.deleteDatabase(name);
            req.onsuccess = req.onerror = req.onblocked = () => resolve();
          }),
      ),
    );
  try {
    for (const key of Object.keys(localStorage))
      if (key.startsWith('flamelens')) localStorage.removeItem(key);
  } catch {
    // No storage: nothing kept there.
  }
}
