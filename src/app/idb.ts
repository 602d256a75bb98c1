// One IndexedDB object store as a function that runs a request in a transaction of it: the
// database is opened for each call and closed after it (the stores are small and rarely used, and
// a closed database never blocks another tab's upgrade). Used by recent.ts and symbolStore.ts.

export type StoreRequest = <T>(
  mode: IDBTransactionMode,
  f: (s: IDBObjectStore) => IDBRequest<T>,
) => Promise<T>;

/** The store `store` (records keyed by `keyPath`) of database `db`, version 1. */
export function objectStore(db: string, store: string, keyPath: string): StoreRequest {
  const open = () =>
    new Promise<IDBDatabase>((resolve, reject) => {
      if (typeof indexedDB === 'undefined') return reject(new Error('no IndexedDB'));
      const req = indexedDB.open(db, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(store, { keyPath });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  return async (mode, f) => {
    const d = await open();
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
