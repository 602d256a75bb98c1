// The oracle's name shortening, ported line by line from test/checks/symbol_fidelity.py `short`
// (pprof's ShortFunctionName plus symbol versions, ABI tags and GCC clone suffixes removed). For
// tests only: it is how the oracle sees names, and shares no code with src/core/text/names.ts.

const CLONE = /(?:\.(?:constprop|isra|part|cold|lto_priv|localalias|clone)(?:\.\d+)*)+$/;

function untilFixed(s: string, re: RegExp): string {
  for (;;) {
    const t = s.replace(re, '');
    if (t === s) return s;
    s = t;
  }
}

export function pprofShort(name: string): string {
  let n = name.replace(/@@?[\w.]+$/, '');
  n = n.replace(/\[abi:[\w.]+\]/g, '');
  n = untilFixed(n, /\([^()]*\)(\s*const)?(\s*volatile)?(\s*&{1,2})?/g);
  n = untilFixed(n, /<[^<>]*>/g);
  n = n.replace(/^.*\s+(\w+::)/, '$1');
  n = n.replace(/\s*\[clone [^\]]*\]/g, '');
  n = n.trim().replace(CLONE, '');
  return n.trim();
}
