/// <reference lib="webworker" />
// The worker: detects, parses, folds and builds the call tree. The page never parses.

import { treeBuffers } from '../core/model/calltree';
import { analyzeBytes } from '../core/pipeline';
import { ProfileError } from '../core/types';
import type { FromWorker, ToWorker } from './protocol';

const post = (msg: FromWorker, transfer: Transferable[] = []) =>
  (self as unknown as DedicatedWorkerGlobalScope).postMessage(msg, transfer);

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type !== 'open') return;
  const { id } = msg;
  let lastPost = 0;
  try {
    const analysis = analyzeBytes(new Uint8Array(msg.buffer), {
      fileName: msg.name,
      onProgress: (phase, fraction) => {
        const t = performance.now();
        if (t - lastPost < 50 && fraction < 1) return;
        lastPost = t;
        post({ type: 'progress', id, phase, fraction });
      },
    });
    const { profile, tree, functions } = analysis;
    const transfer = [
      profile.frames.module.buffer,
      profile.stacks.start.buffer,
      profile.stacks.frames.buffer,
      profile.stacks.weight.buffer,
      ...treeBuffers(tree),
      functions.self.buffer,
      functions.total.buffer,
    ] as ArrayBuffer[];
    post({ type: 'result', id, analysis }, transfer);
  } catch (e) {
    if (e instanceof ProfileError) {
      post({ type: 'error', id, message: e.describe(), offset: e.offset, line: e.line });
    } else {
      const m = e instanceof Error ? e.message : String(e);
      post({ type: 'error', id, message: `internal error while reading the file: ${m}` });
    }
  }
};
