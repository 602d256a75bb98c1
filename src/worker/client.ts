// The main-thread side of the worker boundary. One job at a time: a new drop while one is
// running terminates the busy worker (a synchronous parse cannot be interrupted otherwise).

import type { FileBuffer, FromWorker, PageSandwich, Reply, ToWorker, WorkerResult } from './protocol';
import type { ViewSpec } from './session';

type Progress = (phase: string, fraction: number) => void;

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
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
  onProgress?: (phase: string, fraction: number) => void;
}

export class ProfileWorkerClient {
  private worker: Worker | null = null;
  /** Requests in flight, answered in order by the worker. */
  private pending = new Map<number, Pending>();
  private nextId = 1;

  private spawn(): Worker {
    const w = new Worker(new URL('./profile.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flamelens',
    });
    w.onmessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    w.onerror = (ev) => {
      const all = [...this.pending.values()];
      this.pending.clear();
      this.worker?.terminate();
      this.worker = null;
      for (const p of all)
        p.reject(new WorkerFailure(`the parser stopped unexpectedly: ${ev.message || 'worker error'}`));
    };
    return w;
  }

  private receive(msg: FromWorker): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') {
      p.onProgress?.(msg.phase, msg.fraction);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.type === 'result') p.resolve(msg.reply);
    else p.reject(new WorkerFailure(msg.message, msg.offset, msg.line));
  }

  /**
   * Sends files dropped together (a profile and/or binaries) to the worker. Their buffers are
   * transferred: the caller must not use them again. A job still running is abandoned.
   */
  drop(files: FileBuffer[], onProgress?: Progress): Promise<WorkerResult> {
    this.cancel(); // a new profile makes any running job moot
    return this.analysis(
      { type: 'drop', id: 0, files },
      files.map((f) => f.buffer),
      onProgress,
    );
  }

  /** Re-folds the open profile with mangled or demangled names. */
  setMangled(mangled: boolean, onProgress?: Progress): Promise<WorkerResult> {
    return this.analysis({ type: 'mangled', id: 0, mangled }, [], onProgress);
  }

  /** Applies transforms / inversion to the open profile. */
  setView(view: ViewSpec, onProgress?: Progress): Promise<WorkerResult> {
    return this.analysis({ type: 'view', id: 0, view }, [], onProgress);
  }

  async sandwich(name: string): Promise<PageSandwich> {
    const r = await this.send({ type: 'sandwich', id: 0, name }, []);
    if (r.kind !== 'sandwich') throw new WorkerFailure('unexpected reply from the worker');
    return r.result;
  }

  /** Folded text of the shown view, or of its stacks through a frame-id path. */
  async foldedText(path: number[]): Promise<string> {
    const r = await this.send({ type: 'folded', id: 0, path }, []);
    if (r.kind !== 'text') throw new WorkerFailure('unexpected reply from the worker');
    return r.text;
  }

  private async analysis(
    msg: ToWorker,
    transfer: ArrayBuffer[],
    onProgress?: Progress,
  ): Promise<WorkerResult> {
    const r = await this.send(msg, transfer, onProgress);
    if (r.kind !== 'analysis') throw new WorkerFailure('unexpected reply from the worker');
    return r.result;
  }

  private send(msg: ToWorker, transfer: ArrayBuffer[], onProgress?: Progress): Promise<Reply> {
    if (!this.worker) this.worker = this.spawn();
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { id, resolve, reject, onProgress });
      this.worker!.postMessage({ ...msg, id }, transfer);
    });
  }

  /** Abandons every request in flight by terminating the busy worker (and its state). */
  cancel(): void {
    if (this.pending.size === 0) return;
    const all = [...this.pending.values()];
    this.pending.clear();
    this.worker?.terminate();
    this.worker = null;
    for (const p of all) p.reject(new CancelledError());
  }

  dispose(): void {
    this.cancel();
    this.worker?.terminate();
    this.worker = null;
  }
}
