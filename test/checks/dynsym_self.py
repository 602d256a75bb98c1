#!/usr/bin/env python3
"""Self time by function of a gperftools CPU profile of a stripped program, from binutils' view of
its dynamic symbols, as an oracle independent of Flamelens.

usage: dynsym_self.py PROFILE BINARY NM_LISTING [TOP]

NM_LISTING is `nm -D -S -p --defined-only --without-symbol-versions BINARY` (symbol-table order,
with sizes). A sample's leaf address is named after the sized function symbol of BINARY that
covers it (the last such alias in .dynsym order, pprof's choice); an address in BINARY that no
symbol covers, and any address in another mapped object, counts as `[basename]`; an address in no
mapping as its hex. (addr2line and perl pprof instead name an uncovered address after the nearest
preceding symbol; Go pprof covers by size, as here.) Prints `PERCENT NAME` for the TOP (default 10)
heaviest, percentages of all samples to two decimals, heaviest first, ties by name.
"""
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_gperf import decode  # noqa: E402


def load_segments(path):
    """(vaddr, offset, filesz) of each PT_LOAD of a 64-bit little-endian ELF."""
    with open(path, "rb") as f:
        b = f.read(1 << 16)
    assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "64-bit little-endian ELF expected"
    phoff, = struct.unpack_from("<Q", b, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
    segs = []
    for i in range(phnum):
        p_type, _flags, off, vaddr, _paddr, filesz = struct.unpack_from("<IIQQQQ", b, phoff + i * phentsize)
        if p_type == 1:
            segs.append((vaddr, off, filesz))
    return segs


def main(argv):
    prof, binary, listing = argv[1], argv[2], argv[3]
    top = int(argv[4]) if len(argv) > 4 else 10
    r = decode(open(prof, "rb").read())
    base = os.path.basename(binary)
    syms = {}  # address -> (size, name): the last alias in table order wins
    for line in open(listing):
        parts = line.split()
        if len(parts) == 4 and parts[2] in "TtWwi":
            syms[int(parts[0], 16)] = (int(parts[1], 16), parts[3])
    starts = sorted(a for a, (size, _) in syms.items() if size > 0)
    segs = load_segments(binary)
    maps = [m for m in r["mappings"] if "x" in m["perms"]]

    def name(pc):
        for m in maps:
            if m["start"] <= pc < m["end"]:
                mod = os.path.basename(m["path"])
                if mod != base:
                    return "[%s]" % mod
                off = pc - m["start"] + m["offset"]
                for vaddr, foff, filesz in segs:
                    if foff <= off < foff + filesz:
                        va = off - foff + vaddr
                        lo, hi = 0, len(starts)
                        while lo < hi:  # the last symbol starting at or below va
                            mid = (lo + hi) // 2
                            if starts[mid] <= va:
                                lo = mid + 1
                            else:
                                hi = mid
                        if lo > 0:
                            size, n = syms[starts[lo - 1]]
                            if va < starts[lo - 1] + size:
                                return n
                return "[%s]" % mod
        return "0x%x" % pc

    self_ = {}
    total = 0
    for stack, n in r["stacks"].items():
        leaf = name(stack[-1])
        self_[leaf] = self_.get(leaf, 0) + n
        total += n
    for n, c in sorted(self_.items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
        print("%.2f %s" % (100.0 * c / total, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
