#!/usr/bin/env python3
"""Function-level fidelity of symbolized `flamelens fold` output against Go pprof's -traces.

usage: symbol_fidelity.py binaries PROFILE            -> prints the ELF files (mapped objects present on this
                                                 machine, plus separate debug files found by build-id)
       symbol_fidelity.py compare PROFILE ORACLE_DIR OURS_FOLDED [ELF...]
                                              -> prints 'NAME: P% of samples on identical stacks'
Normalization on both sides: C++ names shortened as pprof does (arguments, templates, leading
return type removed), symbol version suffixes, GCC clone suffixes (.cold, .isra.0, ...) and ABI tags
removed, aliases (names at one address in one ELF file) unified, inline frames dropped from pprof's
side, unsymbolized frames reduced to [module].

The oracle is pprof's -traces (ORACLE_DIR/go.traces.txt[.gz]). When ORACLE_DIR also has go.raw.txt[.gz]
(the same pprof symbolization, printed with location addresses and mappings), the stacks are taken from
it instead, after checking that they equal the -traces stacks, so that two pprof artefacts that a correct
ELF symbolizer cannot reproduce can be undone exactly (see `oracle_stacks`):
  - zero-size symbols: pprof names an address that no sized symbol covers after the nearest preceding
    *zero-size* symbol, e.g. every PLT stub after `.init` becomes `_init`;
  - cleanupDuplicateLocations: pprof deletes the caller frame when the leaf PC equals the caller's
    return address (a real frame: recursion that has just returned to the same call site).
A third artefact, the legacy parser's "2nd frame is the same in most samples" heuristic, deletes frames
whose names pprof never prints, so it is reproduced on our side instead (see `second_frame_removal`).
"""
import collections, gzip, os, re, struct, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # decode_gperf.py is copied next to this file
from decode_gperf import decode, detect_layout  # noqa: E402

NOTES = []


def note(msg):
    NOTES.append(msg)


def oracle_file(oracle, name):
    for p in (os.path.join(oracle, name), os.path.join(oracle, name + ".gz")):
        if os.path.isfile(p):
            return p
    return None


def read_lines(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def build_id(path):
    try:
        out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
# Copies of every mapped object the corpus profiles name, at their original paths, so the check gives
# the same answer on any machine (the originals under /opt and /usr exist only where the profiles
# were recorded).
SYSROOTS = [os.path.join(_FIXTURES, "sysroot")]
CORPUS_BIN = os.path.join(_FIXTURES, "gperf", "bin")


def resolve(path):
    for root in SYSROOTS:
        if os.path.isfile(root + path):
            return os.path.normpath(root + path)
    if path.startswith("/opt/flamelens-corpus/bin/") and os.path.isfile(os.path.join(CORPUS_BIN, os.path.basename(path))):
        return os.path.normpath(os.path.join(CORPUS_BIN, os.path.basename(path)))
    return path if os.path.isfile(path) else None


def binaries(profile):
    r = decode(open(profile, "rb").read())
    seen, out = set(), []
    for m in r["mappings"]:
        p = m["path"]
        if "x" not in m["perms"] or not p.startswith("/") or p in seen:
            continue
        seen.add(p)
        f = resolve(p)
        if not f:
            continue
        out.append(f)
        bid = build_id(f)
        if bid:
            dbg = resolve("/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]))
            if dbg:
                out.append(dbg)
    return out


# GCC clone suffixes: a C symbol `foo.constprop.0` / `foo.cold` is the ELF name of a part of `foo`, which
# pprof names `foo` when the name comes from DWARF (stripped library + separate debug file: nm sees no
# symbols, addr2line reports the DWARF subprogram). For C++ the demangler turns them into
# ` [clone .constprop.0]`, removed below, so both spellings get the same treatment.
CLONE = re.compile(r"(?:\.(?:constprop|isra|part|cold|lto_priv|localalias|clone)(?:\.\d+)*)+$")


def short(name):
    n = name
    n = re.sub(r"@@?[\w.]+$", "", n)  # symbol version (readelf output)
    n = re.sub(r"\[abi:[\w.]+\]", "", n)  # ABI tags: `f[abi:cxx11]()`; never the only difference of 2 functions
    while True:
        m = re.sub(r"\([^()]*\)(\s*const)?(\s*volatile)?(\s*&{1,2})?", "", n)
        if m == n:
            break
        n = m
    while True:
        m = re.sub(r"<[^<>]*>", "", n)
        if m == n:
            break
        n = m
    n = re.sub(r"^.*\s+(\w+::)", r"\1", n)
    n = re.sub(r"\s*\[clone [^\]]*\]", "", n)
    n = CLONE.sub("", n.strip())
    return n.strip()


def symbol_info(elfs):
    """(canon, zero): canon maps a short name to the canonical short name of its alias group (smallest
    of the names defined at one address in one file); zero is the set of short names that are defined
    only by zero-size FUNC symbols (`_init`, `_fini`, ...) in these files."""
    groups = collections.defaultdict(set)
    sized, unsized = set(), set()
    for f in elfs:
        try:
            out = subprocess.run(["readelf", "-Ws", "-C", f], capture_output=True, text=True).stdout
        except OSError:
            continue
        for ln in out.splitlines():
            parts = ln.split(None, 7)
            if len(parts) < 8 or parts[3] not in ("FUNC", "IFUNC") or parts[6] == "UND":
                continue
            name = re.sub(r" \(\d+\)$", "", parts[7])  # readelf's " (N)" version index
            s = short(name)
            try:
                size = int(parts[2], 0)
            except ValueError:
                size = 1
            (sized if size else unsized).add(s)
            groups[(f, parts[1])].add(s)
    canon = {}
    for names in groups.values():
        c = min(names)
        for n in names:
            canon[n] = min(canon.get(n, c), c)
    return canon, unsized - sized


UNSYM = re.compile(r"^(.*)\+0x[0-9a-fA-F]+$")


def ours(path, canon):
    stacks = collections.Counter()
    for num, ln in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        ln = ln.rstrip("\n")
        if not ln.strip():
            continue
        st, _, n = ln.rpartition(" ")
        if not st or not re.match(r"^\d+$", n):
            raise ValueError("%s:%d: not a folded line `a;b;c COUNT`: %r" % (path, num, ln[:120]))
        frames = []
        for f in st.split(";"):
            m = UNSYM.match(f)
            if re.match(r"^0x[0-9a-fA-F]+$", f):
                frames.append("?")
            elif m:
                frames.append("[%s]" % m.group(1))
            else:
                s = short(f)
                frames.append(canon.get(s, s))
        stacks[tuple(frames)] += int(n)
    return stacks


def norm_pprof(f, canon):
    if f.startswith("[") or f == "<unknown>":
        return f if f.startswith("[") else "?"
    s = short(f)
    return canon.get(s, s)


def go_traces(path, period_us, canon):
    stacks = collections.Counter()
    unit = {"ns": 1e-3, "us": 1, "µs": 1, "ms": 1e3, "s": 1e6}
    cur, val = [], None

    def flush():
        if cur and val is not None:
            frames = [norm_pprof(f, canon) for f in reversed(cur) if not f.endswith(" (inline)")]
            stacks[tuple(frames)] += int(round(val / period_us))

    for ln in read_lines(path):
        if ln.startswith("-----------+"):
            flush()
            cur, val = [], None
            continue
        m = re.match(r"^\s+([\d.]+)(ns|us|µs|ms|s)\s+(.*)$", ln)
        if m:
            val = float(m.group(1)) * unit[m.group(2)]
            cur.append(m.group(3).strip())
        elif ln.startswith("      ") and val is not None and ln.strip():
            cur.append(ln.strip())
    flush()
    return stacks


def go_raw(path):
    """pprof -raw: samples [(count, [loc ids] leaf first)], locations {id: (addr, mapping id, [function
    names, innermost inline first, the real function last])}, mappings {id: file}."""
    samples, locs, maps = [], {}, {}
    sect, last = None, None
    for ln in read_lines(path):
        if ln in ("Samples:", "Locations", "Mappings"):
            sect = ln
            continue
        if sect == "Samples:":
            m = re.match(r"^\s+(\d+)\s+\d+:((?:\s+\d+)+)\s*$", ln)
            if m:
                samples.append((int(m.group(1)), [int(x) for x in m.group(2).split()]))
        elif sect == "Locations":
            m = re.match(r"^\s*(\d+): 0x([0-9a-f]+) (?:M=(\d+) )?(?:\[F\] )?(.*)$", ln)
            if m:
                last = int(m.group(1))
                locs[last] = (int(m.group(2), 16), int(m.group(3) or 0), [])
                rest = m.group(4)
            elif ln.startswith("             ") and last is not None:
                rest = ln.strip()
            else:
                continue
            if rest.strip():
                fm = re.match(r"^(.*?) \S*:-?\d+ s=-?\d+(?:\(.*\))?$", rest)
                locs[last][2].append(fm.group(1) if fm else rest.strip())
        elif sect == "Mappings":
            m = re.match(r"^(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S*)", ln)
            if m:
                maps[int(m.group(1))] = m.group(2)
    return samples, locs, maps


def pprof_records(data):
    """The profile's records as Go's legacy parser turns them into samples, with its parse-time frame
    removals replayed: [{count, orig (adjusted PCs, leaf first), locs (after removals), dup}], and
    the list of 2nd-frame removals [(address, records affected, records with >1 frame)]."""
    buf = memoryview(data)
    ws, end, _ = detect_layout(buf)
    fmt = end + ("I" if ws == 4 else "Q")
    nslots = len(buf) // ws

    def slot(i):
        return struct.unpack_from(fmt, buf, i * ws)[0]

    i = 2 + slot(1)
    recs = []
    while i + 2 <= nslots:
        count, n = slot(i), slot(i + 1)
        if n > nslots - i - 2:
            break
        pcs = [slot(i + 2 + k) for k in range(n)]
        i += 2 + n
        if count == 0 and n == 1 and pcs[0] == 0:
            break
        locs = [pc if k == 0 else pc - 1 for k, pc in enumerate(pcs)]  # callers at PC-1, as Go does
        recs.append({"count": count, "orig": tuple(locs), "locs": locs, "dup": False})
    # legacy_profile.go cpuProfile: up to 2 times, if one address is Location[1] in at least
    # len(samples) - len(samples)/32 samples, delete it from those samples.
    removals = []
    margin = len(recs) // 32
    for _ in range(2):
        c = collections.Counter(r["locs"][1] for r in recs if len(r["locs"]) > 1)
        hit = [a for a, k in c.items() if k >= len(recs) - margin]
        if not hit:
            continue
        a = hit[0]
        multi = sum(1 for r in recs if len(r["locs"]) > 1)
        for r in recs:
            if len(r["locs"]) > 1 and r["locs"][1] == a:
                del r["locs"][1]
        removals.append((a, c[a], multi))
    # cleanupDuplicateLocations: delete Location[1] when Location[0] == Location[1] + 1.
    for r in recs:
        if len(r["locs"]) > 1 and r["locs"][0] == r["locs"][1] + 1:
            del r["locs"][1]
            r["dup"] = True
    return recs, removals


def oracle_stacks(profile_data, oracle, period_us, canon, zero):
    traces = oracle_file(oracle, "go.traces.txt")
    if traces is None:
        raise FileNotFoundError("no go.traces.txt[.gz] in %s" % oracle)
    tstacks = go_traces(traces, period_us, canon)
    raw = oracle_file(oracle, "go.raw.txt")
    if raw is None:
        note("no go.raw.txt: pprof artefacts (zero-size symbols, duplicate-leaf removal) not undone")
        return tstacks
    samples, locs, maps = go_raw(raw)

    def name(lid, undo):
        addr, mid, fns = locs[lid]
        mfile = maps.get(mid, "")
        if not fns:
            return "[%s]" % os.path.basename(mfile) if mfile else "?"
        n = norm_pprof(fns[-1], canon)
        if undo and n in zero and mfile:
            return "[%s]" % os.path.basename(mfile)
        return n

    plain = collections.Counter()
    for count, ids in samples:
        plain[tuple(name(i, False) for i in reversed(ids))] += count
    if plain != tstacks:
        diff = (plain - tstacks) + (tstacks - plain)
        note("go.raw.txt and go.traces.txt disagree on %d samples: using go.traces.txt as is"
             % sum(diff.values()))
        return tstacks

    recs, _ = pprof_records(profile_data)
    dup, per_addrs = collections.Counter(), collections.Counter()
    for r in recs:
        per_addrs[tuple(r["locs"])] += r["count"]
        if r["dup"]:
            dup[tuple(r["locs"])] += r["count"]
    if per_addrs - collections.Counter() != collections.Counter(
            {tuple(locs[i][0] for i in ids): c for c, ids in samples}) - collections.Counter():
        note("go.raw.txt's address stacks differ from the profile's records (another run?)")
    out = collections.Counter()
    n_zero = n_dup = 0
    for count, ids in samples:
        addrs = tuple(locs[i][0] for i in ids)
        frames = [name(i, True) for i in ids]  # leaf first
        n_zero += count * sum(1 for i in ids if name(i, True) != name(i, False))
        d = min(dup.get(addrs, 0), count)
        if d:
            # undo cleanupDuplicateLocations: the deleted caller frame is at the leaf's address - 1,
            # i.e. in the leaf's function
            out[tuple(reversed([frames[0]] + frames))] += d
            n_dup += d
        if count - d:
            out[tuple(reversed(frames))] += count - d
    if n_zero:
        note("%d frames named after a zero-size symbol (%s) by pprof counted as [module]"
             % (n_zero, ", ".join(sorted(zero & {norm_pprof(f[-1], canon) for _, _, f in locs.values() if f}))))
    if n_dup:
        note("%d samples: caller frame deleted by pprof's cleanupDuplicateLocations restored" % n_dup)
    return out


def second_frame_removal(profile_data, stacks):
    """Replay the legacy parser's 2nd-frame heuristic on our stacks. It deletes real frames (threads_ptt:
    `main_thread_work` and `main`) and pprof never prints their names, so it cannot be undone on pprof's
    side. It is reproduced exactly when it hit every record with more than one frame (then position
    -2 of every stack is the deleted frame); a partial hit cannot be mapped onto merged function stacks."""
    _, removals = pprof_records(profile_data)
    for addr, hit, multi in removals:
        if hit == multi:
            stacks = _drop2(stacks)
            note("pprof's 2nd-frame heuristic deleted 0x%x from all %d records: same frame dropped here" % (addr, hit))
        else:
            note("pprof's 2nd-frame heuristic deleted 0x%x from %d of %d records: NOT reproduced, "
                 "expect a mismatch on those records" % (addr, hit, multi))
    return stacks


def _drop2(stacks):
    out = collections.Counter()
    for k, v in stacks.items():
        out[k[:-2] + k[-1:] if len(k) > 1 else k] += v
    return out


if __name__ == "__main__":
    if sys.argv[1] == "binaries":
        print("\n".join(binaries(sys.argv[2])))
        sys.exit(0)
    _, _, profile, oracle, folded, *elfs = sys.argv
    name = os.path.basename(profile)
    data = open(profile, "rb").read()
    dec = decode(data)
    period = dec["header"]["period_us"] or 1
    canon, zero = symbol_info(elfs)
    try:
        a = second_frame_removal(data, ours(folded, canon))
        b = oracle_stacks(data, oracle, period, canon, zero)
    except (OSError, ValueError) as e:
        print("%s: cannot compare: %s" % (name, e))
        sys.exit(1)
    total = sum(b.values())
    if total != dec["total_samples"]:
        print("%s: oracle has %d samples but the profile has %d" % (name, total, dec["total_samples"]))
        sys.exit(1)
    same = sum(min(v, a.get(k, 0)) for k, v in b.items())
    pct = 100.0 * same / total if total else 0.0
    print("%s: %.1f%% of %d samples on identical function stacks" % (name, pct, total))
    if os.environ.get("FIDELITY_VERBOSE"):
        for n in NOTES:
            print("  note: %s" % n)
        if pct < 100:
            for k, v in (b - a).most_common(3):
                print("  pprof only: %s %d" % (";".join(k[-6:]), v))
            for k, v in (a - b).most_common(3):
                print("  ours only:  %s %d" % (";".join(k[-6:]), v))
    sys.exit(0 if pct >= 99.0 else 1)
