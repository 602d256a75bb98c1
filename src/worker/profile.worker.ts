/// <reference lib="webworker" />
// The worker: detects, parses, symbolizes, folds and builds the call tree. The page never parses.

import { treeBuffers } from '../core/model/calltree';
import type { Analysis } from '../core/pipeline';
import { ProfileError } from '../core/types';
import {
  type FromWorker,
  type FunctionsPending,
  type Reply,
  type ToWorker,
  toPageProfile,
  type WireAnalysis,
} from './protocol';
import { type SessionResult, WorkerSession } from './session';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker, transfer: Transferable[] = []) => scope.postMessage(msg, transfer);
const session = new WorkerSession();

/** The frame table the page has now: a view that keeps it does not send it again. */
let sentFrames: Analysis['profile']['frames'] | null = null;

function toWire(a: Analysis & FunctionsPending): WireAnalysis {
  const profile = toPageProfile(a.profile);
  if (a.profile.frames === sentFrames) {
    return {
      ...a,
      profile: { ...profile, frames: { count: 0, name: [], module: new Int32Array(0) }, modules: [] },
      sameFrames: true,
    };
  }
  sentFrames = a.profile.frames;
  return { ...a, profile };
}

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
    let reply: Reply;
    if (msg.type === 'sandwich') {
      const r = session.sandwich(msg.name);
      reply = {
        kind: 'sandwich',
        result: {
          ...r,
          callers: { profile: toPageProfile(r.callers.profile), tree: r.callers.tree },
          callees: { profile: toPageProfile(r.callees.profile), tree: r.callees.tree },
        },
      };
    } else if (msg.type === 'search') {
      reply = { kind: 'count', samples: session.searchSamples(msg.match) };
    } else if (msg.type === 'folded') {
      reply = { kind: 'text', text: session.foldedText(msg.path) };
    } else {
      let result: SessionResult;
      if (msg.type === 'drop') {
        const files = msg.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.buffer) }));
        session.onPreview = (a) => {
          const analysis = toWire(a);
          post(
            { type: 'preview', id, analysis },
            transferables({ kind: 'analysis', result: { analysis, symbols: null, newProfile: true } }),
          );
        };
        try {
          result = await session.drop(files, progress);
        } finally {
          session.onPreview = null;
        }
      } else if (msg.type === 'mangled') {
        result = await session.setMangled(msg.mangled, progress);
      } else {
        result = session.setView(msg.view, progress);
      }
      reply = { kind: 'analysis', result: { ...result, analysis: toWire(result.analysis) } };
    }
    post({ type: 'result', id, reply }, transferables(reply));
  } catch (e) {
    if (e instanceof ProfileError) {
      post({ type: 'error', id, message: e.describe(), offset: e.offset, line: e.line });
    } else {
      const m = e instanceof Error ? e.message : String(e);
      post({ type: 'error', id, message: `internal error while reading the file: ${m}` });
    }
  }
}

/** Trees and tables are made per reply: transfer them. Profiles stay with the session (copied). */
function transferables(reply: Reply): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  if (reply.kind === 'analysis') {
    const { tree, functions } = reply.result.analysis;
    out.push(
      ...treeBuffers(tree),
      functions.self.buffer as ArrayBuffer,
      functions.total.buffer as ArrayBuffer,
    );
  } else if (reply.kind === 'sandwich') {
    out.push(...treeBuffers(reply.result.callers.tree), ...treeBuffers(reply.result.callees.tree));
  }
  return [...new Set(out)];
}
