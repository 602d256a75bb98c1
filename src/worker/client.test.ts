// The worker client's fault handling, with a fake worker: a worker that fails or stops answering
// fails its requests with a message (marked as a crash, so the page reopens its profile), and the
// next request gets a new worker; a cancel stops the job without an error.

import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_VIEW, workerViewOf } from '../core/view/schema';
import { CancelledError, ProfileWorkerClient, WorkerFailure, type WorkerLike } from './client';
import type { FromWorker } from './protocol';

class FakeWorker implements WorkerLike {
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  sent: { id: number }[] = [];
  terminated = false;
  postMessage(msg: unknown): void {
    this.sent.push(msg as { id: number });
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(msg: FromWorker): void {
    this.onmessage?.({ data: msg } as MessageEvent<FromWorker>);
  }
}

function client(silenceMs = 60_000) {
  const workers: FakeWorker[] = [];
  const c = new ProfileWorkerClient(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w;
  }, silenceMs);
  return { c, workers };
}

const view = workerViewOf(DEFAULT_VIEW);

describe('ProfileWorkerClient faults', () => {
  it('a worker error fails the request as a crash; the next request starts a new worker', async () => {
    const { c, workers } = client();
    const job = c.apply(view);
    workers[0].onerror?.({ message: 'out of memory', preventDefault() {} } as unknown as ErrorEvent);
    const e = await job.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WorkerFailure);
    expect((e as WorkerFailure).crashed).toBe(true);
    expect((e as WorkerFailure).message).toMatch(/stopped unexpectedly: out of memory/);
    expect(workers[0].terminated).toBe(true);
    const next = c.foldedText([]);
    expect(workers).toHaveLength(2);
    workers[1].reply({
      type: 'result',
      id: workers[1].sent[0].id,
      reply: { kind: 'text', parts: ['a 1\n'] },
    });
    await expect(next).resolves.toEqual(['a 1\n']);
  });

  it('a worker that fails with no request in flight is said to be lost (its profile with it), once', async () => {
    const { c, workers } = client();
    const lost: string[] = [];
    c.onLost = (m) => lost.push(m);
    const job = c.foldedText([]);
    workers[0].reply({ type: 'result', id: workers[0].sent[0].id, reply: { kind: 'text', parts: [] } });
    await expect(job).resolves.toEqual([]);
    workers[0].onerror?.({ message: 'out of memory', preventDefault() {} } as unknown as ErrorEvent);
    expect(lost).toEqual(['the parser stopped unexpectedly: out of memory']);
    expect(workers[0].terminated).toBe(true);
    // A failure with a request in flight is that request's to say, not onLost's.
    const next = c.apply(view).catch((x: unknown) => x);
    workers[1].onerror?.({ message: 'again', preventDefault() {} } as unknown as ErrorEvent);
    expect(((await next) as WorkerFailure).crashed).toBe(true);
    expect(lost).toHaveLength(1);
  });

  it('a worker that stays silent past the watchdog is replaced, and says so', async () => {
    vi.useFakeTimers();
    try {
      const { c, workers } = client(1000);
      const job = c.apply(view).catch((x: unknown) => x);
      // Progress keeps it alive…
      for (let t = 0; t < 5; t++) {
        vi.advanceTimersByTime(500);
        workers[0].reply({ type: 'progress', id: workers[0].sent[0].id, phase: 'parse', fraction: t / 5 });
      }
      expect(workers[0].terminated).toBe(false);
      // …silence does not.
      vi.advanceTimersByTime(2000);
      const e = (await job) as WorkerFailure;
      expect(e.crashed).toBe(true);
      expect(e.message).toMatch(/stopped answering/);
      expect(workers[0].terminated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancel stops the job quietly (CancelledError), not as a failure', async () => {
    const { c, workers } = client();
    const job = c.apply(view).catch((x: unknown) => x);
    expect(c.busy).toBe(true);
    c.cancel();
    expect(await job).toBeInstanceOf(CancelledError);
    expect(workers[0].terminated).toBe(true);
    expect(c.busy).toBe(false);
  });

  // Races mended in ba53617 (a drop of binaries no longer terminates a worker busy with a view)
  // and 5f4c1ff (binaries dropped while a profile opens are for it): the open lifecycle's part
  // is in app/lifecycle.test.ts.
  it('a drop abandons an earlier drop still running, but waits for a view or a search; symbol files abandon nothing', async () => {
    const { c, workers } = client();
    const bin = { name: 'prog', data: new ArrayBuffer(8) };
    // Binaries dropped while a view job runs: the worker (and its profile) stays, the drop queues.
    const job = c.apply(view);
    const search = c.search({ text: 'x', regex: false });
    const symbols = c.drop([bin], view).catch((x: unknown) => x);
    expect(workers).toHaveLength(1);
    expect(workers[0].terminated).toBe(false);
    expect(workers[0].sent).toHaveLength(3);
    const answerOf = (w: FakeWorker, i: number, reply: unknown) =>
      w.reply({ type: 'result', id: w.sent[i].id, reply } as FromWorker);
    const answer = (i: number, reply: unknown) => answerOf(workers[0], i, reply);
    answer(0, { kind: 'view', result: { analysis: null } });
    answer(1, { kind: 'search', result: {} });
    await expect(job).resolves.toEqual({ analysis: null });
    await search;
    // A new drop while that one runs (a parse may take seconds): the worker goes, the first is moot.
    const next = c.drop([bin], view);
    expect(await symbols).toBeInstanceOf(CancelledError);
    expect(workers[0].terminated).toBe(true);
    expect(workers).toHaveLength(2);
    // Symbol files dropped while that one runs are for it: it goes on, they queue.
    const forOpen = c.drop([bin], view, undefined, undefined, true);
    expect(workers[1].terminated).toBe(false);
    expect(workers[1].sent).toHaveLength(2);
    answerOf(workers[1], 0, { kind: 'view', result: { analysis: null } });
    answerOf(workers[1], 1, { kind: 'view', result: { analysis: null } });
    await expect(next).resolves.toEqual({ analysis: null });
    await expect(forOpen).resolves.toEqual({ analysis: null });
  });

  it('a drop sent before its files are sniffed is an open until they prove to be binaries only', async () => {
    const { c, workers } = client();
    const bin = { name: 'prog', data: new ArrayBuffer(8) };
    const answerOf = (w: FakeWorker, i: number) =>
      w.reply({
        type: 'result',
        id: w.sent[i].id,
        reply: { kind: 'view', result: { analysis: null } },
      } as FromWorker);
    // Sniffed as binaries only: a profile dropped while it runs leaves it be, and queues.
    let sniffed!: (only: boolean) => void;
    const binaries = c.drop([bin], view, undefined, undefined, new Promise<boolean>((r) => (sniffed = r)));
    expect(workers[0].sent).toHaveLength(1); // sent before the sniff answered
    sniffed(true);
    await new Promise((r) => setTimeout(r)); // the sniff's answer reached the client
    const profile = c.drop([bin], view);
    expect(workers[0].terminated).toBe(false);
    answerOf(workers[0], 0);
    answerOf(workers[0], 1);
    await expect(binaries).resolves.toEqual({ analysis: null });
    await expect(profile).resolves.toEqual({ analysis: null });
    // Not yet sniffed, or sniffed as a profile: a newer drop makes it moot.
    const pending = c.drop([bin], view, undefined, undefined, new Promise<boolean>(() => {}));
    const newer = c.drop([bin], view);
    expect(await pending.catch((x: unknown) => x)).toBeInstanceOf(CancelledError);
    expect(workers[0].terminated).toBe(true);
    answerOf(workers[1], 0);
    await expect(newer).resolves.toEqual({ analysis: null });
  });
});

describe('ProfileWorkerClient frame tables', () => {
  it('restores the frame table a view or a sandwich half left out (the one the page has)', async () => {
    const { c, workers } = client();
    const frames = { count: 2, name: ['main', 'f'], module: Int32Array.from([-1, -1]) };
    const profile = (withFrames: boolean) =>
      ({
        meta: {},
        frames: withFrames ? frames : { count: 0, name: [], module: new Int32Array(0) },
        modules: withFrames ? ['m'] : [],
        stackCount: 1,
      }) as never;
    const tree = {} as never;
    const result = (analysis: unknown, sandwich: unknown) =>
      ({ analysis, sandwich, symbols: null, newProfile: false, mode: 'sandwich' }) as never;
    const first = c.apply(view);
    workers[0].reply({
      type: 'result',
      id: workers[0].sent[0].id,
      reply: { kind: 'view', result: result({ profile: profile(true), tree }, null) },
    });
    await first;
    const second = c.apply(view);
    const half = { profile: profile(false), tree, sameFrames: true };
    const own = {
      profile: {
        meta: {},
        frames: { count: 1, name: ['g'], module: Int32Array.from([0]) },
        modules: ['m'],
        stackCount: 1,
      },
      tree,
    };
    workers[0].reply({
      type: 'result',
      id: workers[0].sent[1].id,
      reply: {
        kind: 'view',
        result: result(null, { name: 'f', self: 1, total: 1, callers: half, callees: own }),
      },
    });
    const { callers, callees } = (await second).sandwich as unknown as {
      callers: { profile: { frames: typeof frames; modules: string[] }; sameFrames?: true };
      callees: { profile: { frames: typeof frames } };
    };
    expect(callers.profile.frames.name).toEqual(['main', 'f']);
    expect(callers.profile.modules).toEqual(['m']);
    expect(callers.sameFrames).toBeUndefined();
    // A half with a table of its own keeps it.
    expect(callees.profile.frames.name).toEqual(['g']);
  });

  it("puts back the function table a drop's result left out (its preview's), and fails a result that left out one never sent", async () => {
    const { c, workers } = client();
    const profile = {
      meta: {},
      frames: { count: 2, name: ['main', 'f'], module: Int32Array.from([-1, -1]) },
      modules: [],
      stackCount: 1,
    };
    const table = {
      count: 2,
      self: Float64Array.from([0, 3]),
      total: Float64Array.from([3, 3]),
      bySelf: Int32Array.from([1, 0]),
    };
    const left = { count: 0, self: new Float64Array(0), total: new Float64Array(0) };
    const result = (analysis: unknown) =>
      ({ analysis, symbols: null, newProfile: true, mode: 'flame' }) as never;
    const previews: unknown[] = [];
    const drop = c.drop([], view, undefined, (a) => previews.push(a.functions), true);
    const id = workers[0].sent[0].id;
    workers[0].reply({ type: 'preview', id, analysis: { profile, tree: {}, functions: table } as never });
    workers[0].reply({
      type: 'result',
      id,
      reply: { kind: 'view', result: result({ profile, tree: {}, functions: left, sameFunctions: true }) },
    });
    const { analysis } = await drop;
    expect(previews).toEqual([table]);
    expect(analysis?.functions).toBe(table);
    expect(analysis).not.toHaveProperty('sameFunctions');
    // A view job with no preview: a result that says it left the table out is the worker's error.
    const bad = c.apply(view);
    workers[0].reply({
      type: 'result',
      id: workers[0].sent[1].id,
      reply: { kind: 'view', result: result({ profile, tree: {}, functions: left, sameFunctions: true }) },
    });
    await expect(bad).rejects.toThrow(/left out a function table it never sent/);
  });
});
