#!/usr/bin/env python3
"""Independent collapse of `perf script` text into folded stacks, for checking Flamelens's parser.

Semantics (those of Brendan Gregg's stackcollapse-perf.pl, written again here, plus the naming
Flamelens uses for frames perf could not name):
  * one count per sample (the event's period is ignored), every event kept;
  * the process name (comm) is the root frame, then the frames root first;
  * symbol offsets (`+0x1f`) are stripped; C++ names are kept as perf prints them;
  * a frame perf prints as `[unknown]` (or without a symbol) becomes `DSO+0xADDR` (DSO's basename)
    when every address perf printed for that DSO is below 2^32 (perf printed DSO-relative
    addresses), else `0xADDR`; callers (every frame but the leaf) use ADDR - 1, as a return address
    is looked up at PC - 1, except the first user frame after kernel frames (addresses at or above
    0xffff800000000000): the user IP where the kernel was entered, used as it is;
  * lines starting with `#` are skipped; a blank line ends a sample; a line that is neither a
    sample header nor a frame is ignored; when the file does not end with a newline (cut), the
    sample holding its last line is left out; frames with no sample header before them (after a
    broken one) are ignored.
Usage: stackcollapse_perf.py FILE > FILE.collapsed (sorted `stack count` lines).
"""
import re
import sys

HEADER = re.compile(
    r"^(?P<comm>\S.*?)\s+(?:(?P<pid>\d+)/)?(?P<tid>\d+)\s+(?:\[\d+\]\s+)?(?:\d+\.\d+:\s+)?"
    r"(?:\d+\s+)?(?P<event>\S+?):(?:\s+(?P<rest>.*))?$"
)
KERNEL = 0xFFFF800000000000
FRAME = re.compile(r"^\s*(?P<addr>[0-9a-fA-F]+)\s+(?P<rest>.*)$")


def split_frame(text):
    m = FRAME.match(text)
    if not m:
        return None
    rest = m.group("rest").rstrip()
    dso = ""
    if rest.endswith(")"):
        i = rest.rfind(" (")
        if i >= 0:
            dso = rest[i + 2 : -1]
            rest = rest[:i]
        elif rest.startswith("("):
            dso = rest[1:-1]
            rest = ""
    return int(m.group("addr"), 16), rest.strip(), dso


def main(path):
    samples = []  # (comm, [(addr, sym, dso)] leaf first)
    cur = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.endswith("\n"):
                if cur is not None:
                    samples.pop()
                break
            line = line.rstrip("\n").rstrip("\r")
            if line.startswith("#"):
                continue
            if line.strip() == "":
                cur = None
                continue
            if line[0] in " \t" and cur is None:
                continue
            if cur is not None and line[0] in " \t":
                fr = split_frame(line)
                if fr:
                    cur[1].append(fr)
                continue
            h = HEADER.match(line)
            if not h:
                continue
            cur = (h.group("comm").strip(), [])
            samples.append(cur)
            rest = h.group("rest")
            if rest:
                fr = split_frame(rest)
                if fr:
                    cur[1].append(fr)
    absolute = set()
    for _, frames in samples:
        for addr, _, dso in frames:
            if addr >= 1 << 32:
                absolute.add(dso)
    counts = {}
    for comm, frames in samples:
        names = []
        for i, (addr, sym, dso) in enumerate(frames):
            sym = re.sub(r"\+0x[0-9a-fA-F]+$", "", sym)
            if sym == "" or sym == "[unknown]":
                ip = i == 0 or (frames[i - 1][0] >= KERNEL and addr < KERNEL)
                a = addr if ip else (addr - 1) % (1 << 64)
                if dso not in ("", "[unknown]") and dso not in absolute:
                    sym = "%s+0x%x" % (dso.rsplit("/", 1)[-1], a)
                else:
                    sym = "0x%x" % a
            names.append(sym)
        key = ";".join([comm] + names[::-1])
        counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print("%s %d" % (k, counts[k]))


if __name__ == "__main__":
    main(sys.argv[1])
