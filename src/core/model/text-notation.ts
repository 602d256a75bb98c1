// Profiles written as text, trees printed as text: for tests (Firefox Profiler's
// getProfileFromTextSamples is the model). `a;b;c 3` lines, root first; `[mod]` suffix sets a module.

import { StringInterner } from '../address';
import { type FoldedProfile, SAMPLES_COUNT } from '../types';
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
        `${'  '.repeat(d)}${tree.frame[v] === LIGHT_CHILDREN ? '(light children)' : p.frames.name[tree.frame[v]]} ${totalOf(tree, v)}/${selfOf(tree, v)}`,
      );
    }
    const kids: number[] = [];
    for (let c = firstChildOf(tree, v); c !== -1; c = nextSiblingOf(tree, c)) kids.push(c);
    const nd = v === 0 && root === 0 ? 0 : d + 1;
    for (let i = kids.length - 1; i >= 0; i--) work.push([kids[i], nd]);
  }
  return out.join('\n');
}
