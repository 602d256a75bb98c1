// Memory made ready by another thread. A fresh ArrayBuffer's pages are mapped on first write, at
// ~0.5 ms per MB of the writing thread's time in a Chromium worker (filling 200 MB: 165–235 ms
// fresh, 41–64 ms when its pages are in). The call tree's node frames of a large profile per
// address are as many as its stack frames (400 MB file: 200 MB of them), so the profile worker asks
// a helper worker for a buffer of that size before it folds: the helper allocates it and writes a
// byte per page on the other core, and transfers it back (workers of one page share its process:
// the pages go with the buffer); the tree is built into it (1 GB profile: tree 1.6 → 1.3 s).
//
// The helper is started while the profile worker is idle (readFiles, waiting for a large file's
// reads): a nested worker starts only when its parent's event loop turns, so one made just before
// a fold starts after it (measured: its answer never came in time). Its code is
// prefault.worker.ts, inlined in this worker's (Vite's `?worker&inline`: started from a Blob URL,
// it needs no file of its own, in the app, offline and in the single-file report alike).

import PrefaultWorker from './prefault.worker.ts?worker&inline';

let helper: Worker | null = null;

/** Starts the helper, if this thread can start workers (not in node): call while idle. */
export function startHelper(): void {
  if (helper !== null || typeof Worker !== 'function') return;
  try {
    helper = new PrefaultWorker({ name: 'flamelens-prefault' });
    helper.onerror = (e) => {
      e.preventDefault();
      helper = null; // no more requests; each asks for memory as usual
    };
  } catch {
    helper = null;
  }
}

export interface FaultedBuffer {
  /** Settles when the helper has answered. */
  ready: Promise<void>;
  /** The buffer if it has come (once), else null; a later answer is dropped. */
  take(): ArrayBuffer | null;
}

/**
 * Asks the helper for a buffer of `bytes` with its pages in (zeroed); null without a helper. One
 * request at a time: a new one takes over the helper's answers.
 */
export function faultedBuffer(bytes: number): FaultedBuffer | null {
  const h = helper;
  if (h === null) return null;
  let buffer: ArrayBuffer | null = null;
  let answered = () => {};
  const ready = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const onAnswer = (e: MessageEvent<ArrayBuffer | null>) => {
    buffer = e.data;
    answered();
  };
  h.onmessage = onAnswer;
  h.postMessage(bytes);
  return {
    ready,
    take() {
      if (h.onmessage === onAnswer) h.onmessage = null; // a later request's answers are its own
      const b = buffer;
      buffer = null;
      return b;
    },
  };
}

/** `faulted`'s buffer if it comes within `ms` (the fold took long enough for it, or it never will). */
export async function faultedWithin(faulted: FaultedBuffer, ms: number): Promise<ArrayBuffer | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([faulted.ready, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
  return faulted.take();
}
