// Profiles written as text, trees printed as text: for tests (Firefox Profiler's
// getProfileFromTextSamples is the model). `a;b;c 3` lines, root first; `[mod]` suffix sets a module.
// Timed samples (a parsed profile with time stamps and perf's labels): `TIME COMM PID/TID CPU a;b;c`.

import { nameOnlyLocations, StringInterner } from '../address';
import { frameName } from '../text/frame-text';
import { type FoldedProfile, type RawProfile, SAMPLES_COUNT, type SampleLabel } from '../types';
import { type CallTree, firstChildOf, LIGHT_CHILDREN, nextSiblingOf, selfOf, totalOf } from './calltree';
import { functionFrames } from './frames';

export function profileFromText(text: string, fileName = 'test.folded'): FoldedProfile {
  const frameIds = new Map<string, number>();
  const names: string[] = [];
  const moduleOf: number[] = [];
  const modules = new StringInterner();
  const start = [0];
  const frames: number[] = [];
  const weight: number[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const sp = line.lastIndexOf(' ');
    const w = Number(line.slice(sp + 1));
    for (const part of line.slice(0, sp).split(';')) {
      const m = /^(.*?)(?:\[(.+)\])?$/.exec(part)!;
      const key = part;
      let id = frameIds.get(key);
      if (id === undefined) {
        id = names.length;
        frameIds.set(key, id);
        names.push(m[1]);
        moduleOf.push(m[2] ? modules.intern(m[2]) : -1);
      }
      frames.push(id);
    }
    start.push(frames.length);
    weight.push(w);
  }
  const total = weight.reduce((a, b) => a + b, 0);
  return {
    meta: {
      fileName,
      format: 'folded',
      periodUs: 0,
      totalSamples: total,
      mappings: [],
      warnings: [],
      sampleType: SAMPLES_COUNT,
      sampleTypes: [SAMPLES_COUNT],
    },
    frames: functionFrames(names, moduleOf),
    modules: modules.strings,
    stacks: {
      count: weight.length,
      start: Uint32Array.from(start),
      frames: Uint32Array.from(frames),
      weight: Float64Array.from(weight),
    },
  };
}

/** `name total/self` per node, indented two spaces per level, children in tree order. */
export function treeToText(tree: CallTree, p: FoldedProfile, root = 0): string {
  const out: string[] = [];
  const work: [number, number][] = [[root, 0]];
  while (work.length) {
    const [v, d] = work.pop()!;
    if (v !== 0 || root !== 0) {
      out.push(
        `${'  '.repeat(d)}${tree.frame[v] === LIGHT_CHILDREN ? '(light children)' : frameName(p.frames, tree.frame[v])} ${totalOf(tree, v)}/${selfOf(tree, v)}`,
      );
    }
    const kids: number[] = [];
    for (let c = firstChildOf(tree, v); c !== -1; c = nextSiblingOf(tree, c)) kids.push(c);
    const nd = v === 0 && root === 0 ? 0 : d + 1;
    for (let i = kids.length - 1; i >= 0; i--) work.push([kids[i], nd]);
  }
  return out.join('\n');
}

/**
 * A parsed profile of timed samples, one a line: `TIME COMM PID/TID CPU a;b;c [WEIGHT]` (TIME in
 * ns, `-` for none; CPU `-` for none; the stack root first; WEIGHT 1 when left out), with the
 * labels perf gives (comm, pid, tid, cpu). Locations are the frame names.
 */
export function rawFromTimedText(text: string): RawProfile {
  const strings = new StringInterner();
  const locOf = new Map<string, number>();
  const locName: number[] = [];
  const stackStart = [0];
  const stackLocs: number[] = [];
  const weight: number[] = [];
  const time: number[] = [];
  const cols: Record<'comm' | 'pid' | 'tid' | 'cpu', number[]> = { comm: [], pid: [], tid: [], cpu: [] };
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 5) continue;
    const [t, comm, ids, cpu, stack, w] = parts;
    const [pid, tid] = ids.split('/');
    time.push(t === '-' ? Number.NaN : Number(t));
    cols.comm.push(strings.intern(comm));
    cols.pid.push(strings.intern(pid));
    cols.tid.push(strings.intern(tid));
    cols.cpu.push(cpu === '-' ? -1 : strings.intern(cpu));
    const frames = stack.split(';');
    for (let i = frames.length - 1; i >= 0; i--) {
      let loc = locOf.get(frames[i]);
      if (loc === undefined) {
        loc = locName.length;
        locOf.set(frames[i], loc);
        locName.push(strings.intern(frames[i]));
      }
      stackLocs.push(loc);
    }
    stackStart.push(stackLocs.length);
    weight.push(w === undefined ? 1 : Number(w));
  }
  const label = (key: keyof typeof cols): SampleLabel => ({
    key,
    kind: 'string',
    value: Int32Array.from(cols[key]),
  });
  return {
    format: 'perf-script',
    meta: { periodUs: 0, mappings: [] },
    locations: nameOnlyLocations(Int32Array.from(locName)),
    strings: strings.strings,
    samples: {
      count: weight.length,
      stackStart: Uint32Array.from(stackStart),
      stackLocs: Uint32Array.from(stackLocs),
      weight: Float64Array.from(weight),
      time: Float64Array.from(time),
    },
    labels: [label('comm'), label('pid'), label('tid'), label('cpu')],
    adjustCallers: false,
    warnings: [],
  };
}
