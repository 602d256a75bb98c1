/// <reference lib="webworker" />
// The helper of prefault.ts: asked for a buffer of n bytes, it allocates it, writes one byte per
// page (so the pages are in) and sends it back, transferred; null when it cannot allocate it.

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = (e: MessageEvent<number>) => {
  let b: ArrayBuffer | null = null;
  try {
    b = new ArrayBuffer(e.data);
    const u = new Uint8Array(b);
    for (let i = 0; i < u.length; i += 4096) u[i] = 0;
  } catch {
    b = null;
  }
  scope.postMessage(b, b ? [b] : []);
};
