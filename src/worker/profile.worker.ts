/// <reference lib="webworker" />
// The worker: a transport over the core's analysis seam (core/analysis/session.ts), which parses,
// symbolizes, folds and derives every view. It gives the seam the worker's ways with memory
// (bytes freed at once, tree memory made ready on another thread), reads dropped files and
// folders, and turns results into messages. The page never parses.

import { buffersOf } from '../core/analysis/derivations';
import { AnalysisSession } from '../core/analysis/session';
import { namedFunction } from '../core/disasm/disasm';
import { treeBuffers } from '../core/model/calltree';
import type { Analysis, SandwichAnalysis } from '../core/pipeline';
import { type FoldedProfile, ProfileError } from '../core/types';
import { dropFiles } from './folder';
import { faultedBuffer, faultedWithin } from './prefault';
import {
  type FolderNote,
  type FromWorker,
  noFunctions,
  type PageProfile,
  type Reply,
  type ToWorker,
  toPageProfile,
  type WireAnalysis,
  type WireSandwich,
  withoutFrames,
} from './protocol';
import { release } from './release';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker, transfer: Transferable[] = []) => scope.postMessage(msg, transfer);
const session = new AnalysisSession({
  release,
  treeMemory: (bytes) => {
    const faulted = faultedBuffer(bytes);
    return faulted && (() => faultedWithin(faulted, 10));
  },
});

/** The frame table the page has now: a view that keeps it does not send it again. */
let sentFrames: Analysis['profile']['frames'] | null = null;

/**
 * A graph for the wire: its profile as the page sees it, without the frame table when that is the
 * one the page has (`sameFrames`). `remember`: the page keeps this one's table (a view's, not a
 * sandwich half's).
 */
function onWire<T extends { profile: FoldedProfile }>(
  x: T,
  remember: boolean,
): Omit<T, 'profile'> & { profile: PageProfile; sameFrames?: true } {
  const profile = toPageProfile(x.profile);
  if (x.profile.frames === sentFrames) return { ...x, profile: withoutFrames(profile), sameFrames: true };
  if (remember) sentFrames = x.profile.frames;
  return { ...x, profile };
}

const toWire = (a: Analysis): WireAnalysis => onWire(a, true);

/**
 * The function table the current job's coarse preview transferred to the page: the full tree's
 * analysis has the same one (treeAndFunctions), its buffers now detached, and leaves it out.
 */
let previewFunctions: Analysis['functions'] | null = null;

/** The job's result for the wire: its function table left out when its preview carried it. */
function resultToWire(a: Analysis): WireAnalysis {
  const wire = toWire(a);
  if (a.functions !== previewFunctions) return wire;
  return { ...wire, functions: noFunctions(), sameFunctions: true };
}

const toWireSandwich = (s: SandwichAnalysis): WireSandwich => ({
  ...s,
  callers: onWire(s.callers, false),
  callees: onWire(s.callees, false),
});

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
    if (msg.type === 'search') {
      reply = { kind: 'search', result: session.search(msg.query) };
    } else if (msg.type === 'folded') {
      reply = { kind: 'text', parts: session.foldedParts(msg.path) };
    } else if (msg.type === 'source') {
      reply = { kind: 'source', result: session.source(msg.name) };
    } else if (msg.type === 'disasm') {
      reply = { kind: 'disasm', listings: await session.disassemble(namedFunction(msg.name), msg.syntax) };
    } else if (msg.type === 'mappingSamples') {
      reply = { kind: 'mappingSamples', samples: session.mappingSamples() };
    } else if (msg.type === 'sampleAt') {
      reply = { kind: 'sampleAt', sample: session.sampleAt(msg.track, msg.time, msg.tolerance) };
    } else if (msg.type === 'flameChart') {
      reply = { kind: 'flameChart', chart: session.flameChart(msg.request) };
    } else if (msg.type === 'proto') {
      reply = { kind: 'bytes', bytes: session.proto() };
    } else if (msg.type === 'snapshots') {
      reply = { kind: 'snapshots', files: session.snapshots() };
    } else {
      let result: Awaited<ReturnType<AnalysisSession['apply']>>;
      let folder: FolderNote | undefined;
      if (msg.type === 'drop') {
        session.onPreview = (a) => {
          const analysis = toWire(a);
          post({ type: 'preview', id, analysis }, analysisBuffers(analysis));
          previewFunctions = a.functions;
        };
        try {
          ({ result, folder } = await dropFiles(session, msg.files, msg.view, msg.slot, progress));
        } finally {
          session.onPreview = null;
        }
      } else if (msg.type === 'swap') {
        result = await session.swap(msg.view, progress);
      } else {
        result = await session.apply(msg.view, progress);
      }
      const { sandwich, ...rest } = result;
      reply = {
        kind: 'view',
        result: {
          ...rest,
          ...(folder && { folder }),
          analysis: result.analysis && resultToWire(result.analysis),
          ...(sandwich !== undefined && { sandwich: sandwich && toWireSandwich(sandwich) }),
        },
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
  } finally {
    previewFunctions = null;
  }
}

function analysisBuffers(a: WireAnalysis): ArrayBuffer[] {
  return [
    ...treeBuffers(a.tree),
    a.functions.self.buffer as ArrayBuffer,
    a.functions.total.buffer as ArrayBuffer,
    ...(a.functions.bySelf ? [a.functions.bySelf.buffer as ArrayBuffer] : []),
  ];
}

/** Trees, tables and search results are made per reply: transfer them. Profiles stay (copied). */
function transferables(reply: Reply): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  if (reply.kind === 'view') {
    const { analysis, sandwich } = reply.result;
    if (analysis) out.push(...analysisBuffers(analysis));
    if (sandwich) {
      for (const half of [sandwich.callers, sandwich.callees]) {
        out.push(...treeBuffers(half.tree));
        if (half.diff)
          for (const side of [half.diff.comp, half.diff.base])
            out.push(side.total.buffer as ArrayBuffer, side.self.buffer as ArrayBuffer);
      }
    }
    if (reply.result.derived) out.push(...buffersOf(reply.result.derived));
  } else if (reply.kind === 'search') {
    out.push(reply.result.match.buffer as ArrayBuffer);
  } else if (reply.kind === 'flameChart') {
    const c = reply.chart;
    out.push(...[c.start, c.end, c.depth, c.frame].map((a) => a.buffer as ArrayBuffer));
  } else if (reply.kind === 'bytes') {
    out.push(reply.bytes.buffer as ArrayBuffer);
  } else if (reply.kind === 'snapshots') {
    for (const f of reply.files) out.push(f.bytes.buffer as ArrayBuffer);
  }
  return [...new Set(out)];
}
