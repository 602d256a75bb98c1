/// <reference lib="webworker" />
// The worker: detects, parses, symbolizes, folds and builds the call tree. The page never parses.

import { treeBuffers } from '../core/model/calltree';
import { ProfileError } from '../core/types';
import { type FromWorker, type Reply, type ToWorker, toPageProfile } from './protocol';
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
    } else if (msg.type === 'folded') {
      reply = { kind: 'text', text: session.foldedText(msg.path) };
    } else {
      let result: SessionResult;
      if (msg.type === 'drop') {
        const files = msg.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.buffer) }));
        result = await session.drop(files, progress);
      } else if (msg.type === 'mangled') {
        result = await session.setMangled(msg.mangled, progress);
      } else {
        result = session.setView(msg.view, progress);
      }
      const { analysis } = result;
      reply = {
        kind: 'analysis',
        result: { ...result, analysis: { ...analysis, profile: toPageProfile(analysis.profile) } },
      };
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
