/// <reference lib="webworker" />
// The worker: detects, parses, symbolizes, folds and builds the call tree. The page never parses.

import { treeBuffers } from '../core/model/calltree';
import { ProfileError } from '../core/types';
import type { FromWorker, ToWorker } from './protocol';
import { type SessionResult, WorkerSession } from './session';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker, transfer: Transferable[] = []) => scope.postMessage(msg, transfer);
const session = new WorkerSession();

/** Messages are handled one at a time, in order (a fold may await the demangler). */
let queue: Promise<void> = Promise.resolve();

scope.onmessage = (ev: MessageEvent<ToWorker>) => {
  queue = queue.then(() => handle(ev.data));
};

async function handle(msg: ToWorker): Promise<void> {
  const { id } = msg;
  let lastPost = 0;
  const progress = (phase: string, fraction: number) => {
    const t = performance.now();
    if (t - lastPost < 50 && fraction < 1) return;
    lastPost = t;
    post({ type: 'progress', id, phase, fraction });
  };
  try {
    let result: SessionResult;
    if (msg.type === 'drop') {
      const files = msg.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.buffer) }));
      result = await session.drop(files, progress);
    } else {
      result = await session.setMangled(msg.mangled, progress);
    }
    const { profile, tree, functions } = result.analysis;
    const transfer = [
      profile.frames.module.buffer,
      profile.stacks.start.buffer,
      profile.stacks.frames.buffer,
      profile.stacks.weight.buffer,
      ...treeBuffers(tree),
      functions.self.buffer,
      functions.total.buffer,
    ] as ArrayBuffer[];
    post({ type: 'result', id, result }, [...new Set(transfer)]);
  } catch (e) {
    if (e instanceof ProfileError) {
      post({ type: 'error', id, message: e.describe(), offset: e.offset, line: e.line });
    } else {
      const m = e instanceof Error ? e.message : String(e);
      post({ type: 'error', id, message: `internal error while reading the file: ${m}` });
    }
  }
}
