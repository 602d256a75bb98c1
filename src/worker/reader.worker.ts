/// <reference lib="webworker" />
// The reader of read.ts: reads the Blob it is sent in chunks on its own thread (a read is drained
// by the thread that asked for it, so a read in the busy profile worker would wait for the parse)
// and posts each chunk, transferred, at most `ahead` of them not yet acknowledged.

/** Starts a read: the file, the chunk size, and how many chunks may go unacknowledged. */
export interface ReadRequest {
  blob: Blob;
  chunk: number;
  ahead: number;
}

/** What the reader is sent: a ReadRequest, then an 'ack' per chunk handled (its buffer with it, or not). */
export type ToReader = ReadRequest | 'ack';

/**
 * Each chunk (`buf`, transferred) with the time its read took, whether the reader first waited for
 * an acknowledgement (`held`), and when it was posted (`performance.timeOrigin` based); or the
 * error a read failed with.
 */
export type FromReader = { buf: ArrayBuffer; ms: number; held: boolean; sent: number } | { error: string };

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromReader, transfer: Transferable[] = []) => scope.postMessage(msg, transfer);

let credit = 0;
let waiting: (() => void) | null = null;

scope.onmessage = (e: MessageEvent<ToReader>) => {
  if (e.data === 'ack') {
    credit++;
    const w = waiting;
    waiting = null;
    w?.();
    return;
  }
  credit = e.data.ahead;
  void read(e.data);
};

async function read({ blob, chunk }: ReadRequest): Promise<void> {
  for (let at = 0; at < blob.size; at += chunk) {
    const held = credit === 0;
    while (credit === 0)
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
    credit--;
    let buf: ArrayBuffer;
    const t0 = performance.now();
    try {
      buf = await blob.slice(at, Math.min(blob.size, at + chunk)).arrayBuffer();
    } catch (err) {
      post({ error: (err instanceof Error && err.message) || String(err) });
      return;
    }
    post({ buf, ms: performance.now() - t0, held, sent: performance.timeOrigin + performance.now() }, [buf]);
  }
}
