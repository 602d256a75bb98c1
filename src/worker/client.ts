// The main-thread side of the worker boundary. One job at a time: a new drop while one is
// running terminates the busy worker (a synchronous parse cannot be interrupted otherwise).

import type { FileBuffer, FromWorker, ToWorker, WorkerResult } from './protocol';

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export class WorkerFailure extends Error {
  readonly offset?: number;
  readonly line?: number;
  constructor(message: string, offset?: number, line?: number) {
    super(message);
    this.name = 'WorkerFailure';
    this.offset = offset;
    this.line = line;
  }
}

interface Pending {
  id: number;
  resolve: (r: WorkerResult) => void;
  reject: (e: Error) => void;
  onProgress?: (phase: string, fraction: number) => void;
}

export class ProfileWorkerClient {
  private worker: Worker | null = null;
  private pending: Pending | null = null;
  private nextId = 1;

  private spawn(): Worker {
    const w = new Worker(new URL('./profile.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flamelens',
    });
    w.onmessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    w.onerror = (ev) => {
      const p = this.pending;
      this.pending = null;
      this.worker?.terminate();
      this.worker = null;
      p?.reject(new WorkerFailure(`the parser stopped unexpectedly: ${ev.message || 'worker error'}`));
    };
    return w;
  }

  private receive(msg: FromWorker): void {
    const p = this.pending;
    if (!p || msg.id !== p.id) return;
    if (msg.type === 'progress') {
      p.onProgress?.(msg.phase, msg.fraction);
      return;
    }
    this.pending = null;
    if (msg.type === 'result') p.resolve(msg.result);
    else p.reject(new WorkerFailure(msg.message, msg.offset, msg.line));
  }

  /**
   * Sends files dropped together (a profile and/or binaries) to the worker. Their buffers are
   * transferred: the caller must not use them again. A job still running is abandoned.
   */
  drop(files: FileBuffer[], onProgress?: (phase: string, fraction: number) => void): Promise<WorkerResult> {
    return this.send(
      { type: 'drop', id: 0, files },
      files.map((f) => f.buffer),
      onProgress,
    );
  }

  /** Re-folds the open profile with mangled or demangled names. */
  setMangled(
    mangled: boolean,
    onProgress?: (phase: string, fraction: number) => void,
  ): Promise<WorkerResult> {
    return this.send({ type: 'mangled', id: 0, mangled }, [], onProgress);
  }

  private send(
    msg: ToWorker,
    transfer: ArrayBuffer[],
    onProgress?: (phase: string, fraction: number) => void,
  ): Promise<WorkerResult> {
    this.cancel();
    if (!this.worker) this.worker = this.spawn();
    const id = this.nextId++;
    return new Promise<WorkerResult>((resolve, reject) => {
      this.pending = { id, resolve, reject, onProgress };
      this.worker!.postMessage({ ...msg, id }, transfer);
    });
  }

  /** Abandons the running parse, if any, by terminating the busy worker. */
  cancel(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.worker?.terminate();
    this.worker = null;
    p.reject(new CancelledError());
  }

  dispose(): void {
    this.cancel();
    this.worker?.terminate();
    this.worker = null;
  }
}
