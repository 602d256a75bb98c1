// Reads `go tool pprof -symbolize=none -raw` output: the header, the sample types (and which is the
// default), each sample's values, location ids and labels, and each location's function names.

export interface GoRawSample {
  values: number[];
  /** Location ids, leaf first. */
  locations: number[];
  /** `key=value` per label value, sorted; a number's unit left out (`bytes:[8192 bytes]` → bytes=8192). */
  labels: string[];
}

export interface GoRaw {
  /** `PeriodType`, `Period`, `Duration`… as printed. */
  header: Map<string, string>;
  /** `type/unit` per value column. */
  types: string[];
  /** The column marked `[dflt]`, or -1. */
  dflt: number;
  samples: GoRawSample[];
  /** Per location id, its functions, innermost (inlined) first; `@0xADDR` for an address alone. */
  locations: Map<number, string[]>;
}

export function readGoRaw(text: string): GoRaw {
  const out: GoRaw = { header: new Map(), types: [], dflt: -1, samples: [], locations: new Map() };
  let section = 'header';
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    if (line === 'Samples:' || line === 'Locations' || line === 'Mappings') {
      section = line.replace(':', '');
      continue;
    }
    if (section === 'header') {
      const m = /^(\w+): (.*)$/.exec(line);
      if (m) out.header.set(m[1], m[2]);
    } else if (section === 'Samples') {
      if (out.types.length === 0) {
        out.types = line.trim().split(/\s+/);
        out.dflt = out.types.findIndex((t) => t.endsWith('[dflt]'));
        out.types = out.types.map((t) => t.replace(/\[dflt\]$/, ''));
        continue;
      }
      const sample = /^\s+([-\d ]+): ([\d ]*)$/.exec(line);
      if (sample) {
        out.samples.push({
          values: sample[1].trim().split(/\s+/).map(Number),
          locations: sample[2].trim().split(/\s+/).filter(Boolean).map(Number),
          labels: [],
        });
        continue;
      }
      const last = out.samples.at(-1);
      if (last && /^\s+\S+:\[/.test(line)) {
        for (const m of line.matchAll(/(\S+?):\[([^\]]*)\]/g))
          last.labels.push(`${m[1]}=${m[2].replace(/^(-?[\d.]+) [a-zA-Z]+$/, '$1')}`);
        last.labels.sort();
      }
    } else if (section === 'Locations') {
      const loc = /^\s+(\d+): (0x[0-9a-f]+) M=\d+ ?(.*)$/.exec(line);
      if (loc) {
        const rest = loc[3].replace(/ s=\d+$/, '');
        current = rest === '' ? [`@${loc[2]}`] : [functionOf(rest)];
        out.locations.set(Number(loc[1]), current);
        continue;
      }
      const inlined = /^\s+(\S.*) s=\d+$/.exec(line);
      if (inlined && current) current.push(functionOf(inlined[1]));
    }
  }
  return out;
}

/** `NAME FILE:LINE` → NAME (the file may be empty: ` :0`). */
function functionOf(text: string): string {
  return text.replace(/ \S*:\d+$/, '');
}

/** A sample's functions root first (each location's inlined functions after the one holding them). */
export function rootFirst(raw: GoRaw, s: GoRawSample): string[] {
  const leafFirst = s.locations.flatMap((id) => raw.locations.get(id) ?? [`?${id}`]);
  return leafFirst.reverse();
}

/**
 * Per (stack, labels), or per labels alone, each sample type's sum, by type name: what Go says a
 * profile holds (whether it merged samples or not).
 */
export function goRawTotals(
  raw: GoRaw,
  by: 'stack' | 'labels' = 'stack',
): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const s of raw.samples) {
    const key = `${by === 'stack' ? rootFirst(raw, s).join(';') : ''} | ${s.labels.join(' ')}`;
    const sums = out.get(key) ?? Object.fromEntries(raw.types.map((t) => [t, 0]));
    raw.types.forEach((t, i) => {
      sums[t] += s.values[i];
    });
    out.set(key, sums);
  }
  return out;
}
