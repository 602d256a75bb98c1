// How much of its stacks' frames a profile's call tree keeps as nodes, told from a sample of the
// stacks: a tree of stacks that share long prefixes has far fewer nodes than their frames.

/** Frames looked at, at most: the nodes they make fill at most half of the hash's slots. */
const MAX_FRAMES = 1 << 16;
const SLOTS = MAX_FRAMES * 2;

/**
 * The share of their frames that the call tree of `k` raw stacks spread evenly over the samples
 * (and no more than MAX_FRAMES frames of them) has as nodes: a node per distinct root-first prefix
 * of locations. The whole tree's share is about this or less: each stack adds the frames past its
 * longest prefix already in the tree, and among more stacks more prefixes are shared.
 * `stackStart`/`stackLocs`: RawProfile's (leaf first). 1 for no frames.
 */
export function sampledTreeShare(
  stackStart: Uint32Array,
  stackLocs: Uint32Array,
  count: number,
  k = 2048,
): number {
  const n = Math.min(k, count);
  // open addressing: slot → (parent node, location), its node id the slot's index + 1
  const parentOf = new Int32Array(SLOTS).fill(-1);
  const locOf = new Uint32Array(SLOTS);
  let nodes = 0;
  let frames = 0;
  for (let j = 0; j < n && frames < MAX_FRAMES; j++) {
    const s = Math.floor((j * count) / n);
    let node = 0;
    for (let p = stackStart[s + 1] - 1; p >= stackStart[s] && frames < MAX_FRAMES; p--) {
      const loc = stackLocs[p];
      let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(loc, 0x85ebca6b)) >>> 0;
      for (;;) {
        h &= SLOTS - 1;
        if (parentOf[h] < 0) {
          parentOf[h] = node;
          locOf[h] = loc;
          nodes++;
          break;
        }
        if (parentOf[h] === node && locOf[h] === loc) break;
        h++;
      }
      node = h + 1;
      frames++;
    }
  }
  return frames === 0 ? 1 : nodes / frames;
}
