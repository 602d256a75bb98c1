// The main-thread side of the worker boundary. Requests are answered in order by the worker. A
// new drop while jobs are running terminates the busy worker (a synchronous parse cannot be
// interrupted otherwise); other requests queue, so the worker keeps its profile.

import type { MappingSamples } from '../core/symbols/modules';
import type {
  FileBuffer,
  FlameChartReply,
  FlameChartRequest,
  FromWorker,
  FunctionListing,
  PageAnalysis,
  PageProfile,
  PageSandwich,
  Reply,
  SampleAt,
  SearchQuery,
  SearchReply,
  SnapshotFile,
  SourceReply,
  ToWorker,
  ViewResult,
  WireAnalysis,
  WireSandwich,
  WorkerView,
} from './protocol';
import { spawnWorker } from './spawn';

type Progress = (phase: string, fraction: number) => void;
type Preview = (a: PageAnalysis) => void;

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export class WorkerFailure extends Error {
  readonly offset?: number;
  readonly line?: number;
  /** The worker itself failed (threw outside a job, ran out of memory, stopped answering): it was restarted and its state is gone. */
  readonly crashed: boolean;
  constructor(message: string, offset?: number, line?: number, crashed = false) {
    super(message);
    this.name = 'WorkerFailure';
    this.offset = offset;
    this.line = line;
    this.crashed = crashed;
  }
}

/** How long a busy worker may stay silent (no progress, no answer) before it counts as hung. */
export const WATCHDOG_MS = 60_000;

/** The part of a Worker the client uses: a test can give it a fake. */
export interface WorkerLike {
  postMessage(msg: unknown, transfer: Transferable[]): void;
  terminate(): void;
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

interface Pending {
  /** A drop that may open a new profile, which a newer drop makes moot. */
  opens: boolean;
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
  onProgress?: Progress;
  onPreview?: Preview;
  /** The function table of the request's last preview: its result may leave it out (sameFunctions). */
  previewFunctions?: PageAnalysis['functions'];
}

export class ProfileWorkerClient {
  private worker: WorkerLike | null = null;
  /** When the busy worker was last heard from (any message), for the watchdog. */
  private lastHeard = 0;
  private watchdog: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly makeWorker: () => WorkerLike = spawnWorker,
    private readonly silenceMs = WATCHDOG_MS,
  ) {}
  /** Requests in flight, answered in order by the worker. */
  private pending = new Map<number, Pending>();
  private nextId = 1;
  /** The frame table of the last analysis received: the worker leaves an unchanged one out. */
  private frames: Pick<PageAnalysis['profile'], 'frames' | 'modules'> | null = null;

  /** `x` with the frame table the worker left out (`sameFrames`: the one the page has) put back. */
  private withFrames<T extends { profile: PageProfile; sameFrames?: true }>(x: T): Omit<T, 'sameFrames'> {
    if (!x.sameFrames || !this.frames) return x;
    const { sameFrames: _, ...rest } = x;
    return { ...rest, profile: { ...rest.profile, ...this.frames } };
  }

  /**
   * A view's analysis, its frame table restored, or remembered when it came with one; its function
   * table `previewFunctions` when the worker left it out (sameFunctions: its preview's).
   */
  private fromWire(a: WireAnalysis, previewFunctions?: PageAnalysis['functions']): PageAnalysis {
    if (!a.sameFrames || !this.frames) this.frames = { frames: a.profile.frames, modules: a.profile.modules };
    const { sameFunctions, ...rest } = a;
    return this.withFrames(
      sameFunctions && previewFunctions ? { ...rest, functions: previewFunctions } : rest,
    );
  }

  /** A sandwich's halves, their frame tables restored (see WireGraph). */
  private sandwichFromWire(s: WireSandwich | null | undefined): PageSandwich | null | undefined {
    return s && { ...s, callers: this.withFrames(s.callers), callees: this.withFrames(s.callees) };
  }

  private spawn(): WorkerLike {
    const w = this.makeWorker();
    w.onmessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    w.onerror = (ev) => {
      ev.preventDefault?.();
      this.fail(`the parser stopped unexpectedly: ${ev.message || 'worker error (out of memory?)'}`);
    };
    return w;
  }

  /**
   * Told when the worker failed as a whole while no request was in flight (a request in flight
   * fails with the message instead): what it held (the open profile) went with it.
   */
  onLost: ((message: string) => void) | null = null;

  /** The worker failed as a whole: every request fails with `message`; the next one starts a new worker. */
  private fail(message: string): void {
    const idle = this.pending.size === 0;
    this.abandon(new WorkerFailure(message, undefined, undefined, true));
    if (idle) this.onLost?.(message);
  }

  /** Terminates the worker (and its state) and rejects every request in flight with `reason`. */
  private abandon(reason: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    this.stopWatchdog();
    this.worker?.terminate();
    this.worker = null;
    this.frames = null;
    for (const p of all) p.reject(reason);
  }

  /** While requests are pending, a worker silent for `silenceMs` is taken as hung and replaced. */
  private startWatchdog(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(
      () => {
        if (this.pending.size === 0) return this.stopWatchdog();
        const silent = performance.now() - this.lastHeard;
        if (silent > this.silenceMs)
          this.fail(`the parser stopped answering for ${Math.round(silent / 1000)} s and was restarted`);
      },
      Math.min(2000, this.silenceMs / 4),
    );
  }

  private stopWatchdog(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private receive(msg: FromWorker): void {
    this.lastHeard = performance.now();
    const p = this.pending.get(msg.id);
    if (!p) return;
    switch (msg.type) {
      case 'progress':
        p.onProgress?.(msg.phase, msg.fraction);
        return;
      case 'preview': {
        const a = this.fromWire(msg.analysis);
        p.previewFunctions = a.functions;
        p.onPreview?.(a);
        return;
      }
      case 'result':
        this.pending.delete(msg.id);
        if (msg.reply.kind === 'view') {
          const { analysis, sandwich } = msg.reply.result;
          if (analysis?.sameFunctions && !p.previewFunctions) {
            p.reject(new WorkerFailure('internal error: the result left out a function table it never sent'));
            return;
          }
          // The analysis first: a new one brings the frame table its sandwich may leave out.
          const restored = analysis && this.fromWire(analysis, p.previewFunctions);
          p.resolve({
            kind: 'view',
            result: {
              ...msg.reply.result,
              analysis: restored,
              ...(sandwich !== undefined && { sandwich: this.sandwichFromWire(sandwich) }),
            },
          });
        } else {
          p.resolve(msg.reply);
        }
        return;
      case 'error':
        this.pending.delete(msg.id);
        p.reject(new WorkerFailure(msg.message, msg.offset, msg.line));
        return;
    }
  }

  /** True while a request is in flight. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Starts the worker ahead of the first file, so a drop does not wait for it. */
  warmUp(): void {
    if (!this.worker) this.worker = this.spawn();
  }

  /**
   * Sends files dropped together (a profile and/or binaries) to the worker, with the view a new
   * profile is to be shown with. Buffers in memory are transferred (the caller must not use them
   * again); files (Blobs) are passed by reference and read by the worker.
   * An earlier drop still running is abandoned (with the worker: a parse may take seconds); other
   * jobs (a view, a search) finish first: the files may be binaries for the open profile, which
   * a new worker would not have. `forOpen` (the files are for the profile being opened or open:
   * symbol files, a folder's files) abandons nothing; still being found out (a promise: nothing
   * runs that it could abandon), the drop is an open until it says so. A large new profile first
   * arrives coarse through `onPreview`.
   */
  drop(
    files: FileBuffer[],
    view: WorkerView,
    onProgress?: Progress,
    onPreview?: Preview,
    forOpen: boolean | Promise<boolean> = false,
  ): Promise<ViewResult> {
    if (forOpen === false && [...this.pending.values()].some((p) => p.opens)) this.cancel();
    const transfer = buffersOf(files);
    const msg: ToWorker = { type: 'drop', id: 0, files, view, slot: 'main' };
    const opens = forOpen instanceof Promise ? forOpen.then((only) => !only) : !forOpen;
    return this.view(msg, transfer, onProgress, onPreview, opens);
  }

  /** Files with a profile to compare the open one with (its baseline); queued like a view. */
  compare(files: FileBuffer[], view: WorkerView, onProgress?: Progress): Promise<ViewResult> {
    const transfer = buffersOf(files);
    return this.view({ type: 'drop', id: 0, files, view, slot: 'base' }, transfer, onProgress);
  }

  /** Exchanges the profile and its baseline. */
  swap(view: WorkerView, onProgress?: Progress): Promise<ViewResult> {
    return this.view({ type: 'swap', id: 0, view }, [], onProgress);
  }

  /** Applies a view (transforms, inversion, mode, names, sample type) to the open profile. */
  apply(view: WorkerView, onProgress?: Progress): Promise<ViewResult> {
    return this.view({ type: 'view', id: 0, view }, [], onProgress);
  }

  /** Search over the shown view: matched frames, samples through them, the places to visit. */
  async search(query: SearchQuery): Promise<SearchReply> {
    const r = await this.send({ type: 'search', id: 0, query }, []);
    if (r.kind !== 'search') throw new WorkerFailure('unexpected reply from the worker');
    return r.result;
  }

  /** Folded text of the shown view, or of its stacks through a frame-id path, in parts. */
  async foldedText(path: number[]): Promise<string[]> {
    const r = await this.send({ type: 'folded', id: 0, path }, []);
    if (r.kind !== 'text') throw new WorkerFailure('unexpected reply from the worker');
    return r.parts;
  }

  /** Where a function spends its samples, per source line and per address. */
  async source(name: string): Promise<SourceReply> {
    const r = await this.send({ type: 'source', id: 0, name }, []);
    if (r.kind !== 'source') throw new WorkerFailure('unexpected reply from the worker');
    return r.result;
  }

  /** A function's instructions with their samples, from the dropped binary that holds it. */
  async disassembly(name: string, syntax: 'att' | 'intel'): Promise<FunctionListing[]> {
    const r = await this.send({ type: 'disasm', id: 0, name, syntax }, []);
    if (r.kind !== 'disasm') throw new WorkerFailure('unexpected reply from the worker');
    return r.listings;
  }

  /** Per mapped file, the samples in it (counted in the worker when a fold put them off). */
  async mappingSamples(): Promise<MappingSamples[]> {
    const r = await this.send({ type: 'mappingSamples', id: 0 }, []);
    if (r.kind !== 'mappingSamples') throw new WorkerFailure('unexpected reply from the worker');
    return r.samples;
  }

  /** The sample of a timeline track nearest to `time` (ns) within `tolerance`, with its stack. */
  async sampleAt(track: number, time: number, tolerance: number): Promise<SampleAt | null> {
    const r = await this.send({ type: 'sampleAt', id: 0, track, time, tolerance }, []);
    if (r.kind !== 'sampleAt') throw new WorkerFailure('unexpected reply from the worker');
    return r.sample;
  }

  /** A track's flame chart over a window, at a width in pixels. */
  async flameChart(request: FlameChartRequest): Promise<FlameChartReply> {
    const r = await this.send({ type: 'flameChart', id: 0, request }, []);
    if (r.kind !== 'flameChart') throw new WorkerFailure('unexpected reply from the worker');
    return r.chart;
  }

  /** The shown profile as gzipped pprof profile.proto, written in the worker. */
  async proto(): Promise<Uint8Array> {
    const r = await this.send({ type: 'proto', id: 0 }, []);
    if (r.kind !== 'bytes') throw new WorkerFailure('unexpected reply from the worker');
    return r.bytes;
  }

  /** The open profile(s) with their symbols' names written in, as snapshot files (an HTML report's). */
  async snapshots(): Promise<SnapshotFile[]> {
    const r = await this.send({ type: 'snapshots', id: 0 }, []);
    if (r.kind !== 'snapshots') throw new WorkerFailure('unexpected reply from the worker');
    return r.files;
  }

  private async view(
    msg: ToWorker,
    transfer: ArrayBuffer[],
    onProgress?: Progress,
    onPreview?: Preview,
    opens: boolean | Promise<boolean> = false,
  ): Promise<ViewResult> {
    const r = await this.send(msg, transfer, onProgress, onPreview, opens);
    if (r.kind !== 'view') throw new WorkerFailure('unexpected reply from the worker');
    return r.result;
  }

  /**
   * `opens`: the request may open a new profile (a drop), which a newer drop makes moot; when
   * still being found out (a promise), it counts as one until found not to be.
   */
  private send(
    msg: ToWorker,
    transfer: ArrayBuffer[],
    onProgress?: Progress,
    onPreview?: Preview,
    opens: boolean | Promise<boolean> = false,
  ): Promise<Reply> {
    if (!this.worker) this.worker = this.spawn();
    const id = this.nextId++;
    if (this.pending.size === 0) this.lastHeard = performance.now();
    this.startWatchdog();
    return new Promise<Reply>((resolve, reject) => {
      const pending: Pending = { opens: opens !== false, resolve, reject, onProgress, onPreview };
      if (opens instanceof Promise) void opens.then((o) => void (pending.opens = o));
      this.pending.set(id, pending);
      this.worker!.postMessage({ ...msg, id }, transfer);
    });
  }

  /** Abandons every request in flight by terminating the busy worker (and its state). */
  cancel(): void {
    if (this.pending.size > 0) this.abandon(new CancelledError());
  }

  dispose(): void {
    this.cancel();
    this.worker?.terminate();
    this.worker = null;
  }
}

/** The files' in-memory buffers (transferred); Blobs are cloned by reference. */
function buffersOf(files: FileBuffer[]): ArrayBuffer[] {
  return files.flatMap((f) => (f.data instanceof ArrayBuffer ? [f.data] : []));
}
