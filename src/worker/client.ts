// The main-thread side of the worker boundary. One parse at a time: opening another file while
// one is parsing terminates the busy worker (a synchronous parse cannot be interrupted otherwise).

import type { Analysis } from '../core/pipeline';
import type { FromWorker, ToWorker } from './protocol';

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
  resolve: (a: Analysis) => void;
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
    if (msg.type === 'result') p.resolve(msg.analysis);
    else p.reject(new WorkerFailure(msg.message, msg.offset, msg.line));
  }

  /** Parses a file in the worker. The buffer is transferred: the caller must not use it again. */
  open(
    name: string,
    buffer: ArrayBuffer,
    onProgress?: (phase: string, fraction: number) => void,
  ): Promise<Analysis> {
    this.cancel();
    if (!this.worker) this.worker = this.spawn();
    const id = this.nextId++;
    return new Promise<Analysis>((resolve, reject) => {
      this.pending = { id, resolve, reject, onProgress };
      const msg: ToWorker = { type: 'open', id, name, buffer };
      this.worker!.postMessage(msg, [buffer]);
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
