#!/usr/bin/env python3
"""Expected `flamelens fold` output for an unsymbolized gperftools profile, per the naming rule
filed with the first-path issue: frames root first; MODULE+0xOFFSET where MODULE is the basename
of the executable mapping holding the address (leaf PC as is, callers PC-1) and OFFSET =
addr - start + file offset, lowercase hex without leading zeros; 0x<hex> outside every mapping.

usage: expect_fold.py PROFILE           -> prints sorted folded lines
       expect_fold.py --compare PROFILE ACTUAL_FILE  -> exit 0 if equal, prints a summary line
"""
import os, sys, bisect
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # decode_gperf.py is copied next to this file
from decode_gperf import decode  # noqa: E402


def expected(path):
    data = open(path, "rb").read()
    r = decode(data)
    maps = sorted((m for m in r["mappings"] if "x" in m["perms"] and m["path"]), key=lambda m: m["start"])
    starts = [m["start"] for m in maps]

    def name(addr):
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and addr < maps[i]["end"]:
            m = maps[i]
            return "%s+0x%x" % (os.path.basename(m["path"]), addr - m["start"] + m["offset"])
        return "0x%x" % addr

    out = {}
    for stack, count in r["stacks"].items():  # decode's keys are root first
        pcs = list(stack)
        adj = [pc - 1 for pc in pcs[:-1]] + [pcs[-1]]  # callers PC-1, leaf as is
        line = ";".join(name(a) for a in adj)
        out[line] = out.get(line, 0) + count
    return out, r


def parse_folded(text):
    out = {}
    for ln in text.splitlines():
        ln = ln.rstrip()
        if not ln:
            continue
        stack, _, n = ln.rpartition(" ")
        out[stack] = out.get(stack, 0) + int(n)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        exp, r = expected(sys.argv[2])
        act = parse_folded(open(sys.argv[3]).read())
        te, ta = sum(exp.values()), sum(act.values())
        same = sum(min(v, act.get(k, 0)) for k, v in exp.items())
        ok = exp == act
        print("%s: %s stacks exp=%d act=%d samples exp=%d act=%d matching=%d" % (
            os.path.basename(sys.argv[2]), "EQUAL" if ok else "DIFF", len(exp), len(act), te, ta, same))
        sys.exit(0 if ok else 1)
    exp, _ = expected(sys.argv[1])
    for k in sorted(exp):
        print("%s %d" % (k, exp[k]))
