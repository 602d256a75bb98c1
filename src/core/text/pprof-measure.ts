// pprof's value formatting (internal/measurement/measurement.go): units scaled to the best of their
// kind (`684ms`, `1.50MB`, `18`), percentages as pprof prints them (`54.39%`, `0.29%`, `  100%`).
// The call graph's DOT text uses these so that it reads as `pprof -dot` writes it.

interface Unit {
  name: string;
  aliases: string[];
  factor: number;
}
interface UnitType {
  units: Unit[];
  defaultUnit: Unit;
}

const UNIT_TYPES: UnitType[] = [
  {
    units: [
      { name: 'B', aliases: ['b', 'byte'], factor: 1 },
      { name: 'kB', aliases: ['kb', 'kbyte', 'kilobyte'], factor: 2 ** 10 },
      { name: 'MB', aliases: ['mb', 'mbyte', 'megabyte'], factor: 2 ** 20 },
      { name: 'GB', aliases: ['gb', 'gbyte', 'gigabyte'], factor: 2 ** 30 },
      { name: 'TB', aliases: ['tb', 'tbyte', 'terabyte'], factor: 2 ** 40 },
      { name: 'PB', aliases: ['pb', 'pbyte', 'petabyte'], factor: 2 ** 50 },
    ],
    defaultUnit: { name: 'B', aliases: ['b', 'byte'], factor: 1 },
  },
  {
    units: [
      { name: 'ns', aliases: ['ns', 'nanosecond'], factor: 1 },
      { name: 'us', aliases: ['μs', 'us', 'microsecond'], factor: 1e3 },
      { name: 'ms', aliases: ['ms', 'millisecond'], factor: 1e6 },
      { name: 's', aliases: ['s', 'sec', 'second'], factor: 1e9 },
      { name: 'hrs', aliases: ['hour', 'hr'], factor: 3600e9 },
    ],
    defaultUnit: { name: 's', aliases: [], factor: 1e9 },
  },
  {
    units: [
      { name: 'n*GCU', aliases: ['nanogcu'], factor: 1e-9 },
      { name: 'u*GCU', aliases: ['microgcu'], factor: 1e-6 },
      { name: 'm*GCU', aliases: ['milligcu'], factor: 1e-3 },
      { name: 'GCU', aliases: ['gcu'], factor: 1 },
      { name: 'k*GCU', aliases: ['kilogcu'], factor: 1e3 },
      { name: 'M*GCU', aliases: ['megagcu'], factor: 1e6 },
      { name: 'G*GCU', aliases: ['gigagcu'], factor: 1e9 },
      { name: 'T*GCU', aliases: ['teragcu'], factor: 1e12 },
      { name: 'P*GCU', aliases: ['petagcu'], factor: 1e15 },
    ],
    defaultUnit: { name: 'GCU', aliases: [], factor: 1 },
  },
];

function sniffUnit(t: UnitType, unit: string): Unit | undefined {
  let u = unit.toLowerCase();
  if (u.length > 2 && u.endsWith('s')) u = u.slice(0, -1);
  return t.units.find((x) => x.aliases.includes(u));
}

function autoScale(t: UnitType, value: number): [number, string] | null {
  let f = 0;
  let name = '';
  for (const u of t.units) {
    if (u.factor >= f && value / u.factor >= 1) {
      f = u.factor;
      name = u.name;
    }
  }
  return f === 0 ? null : [value / f, name];
}

/** measurement.Scale: `value` in `fromUnit` expressed in `toUnit` ('minimum'/'auto': the best unit). */
export function pprofScale(value: number, fromUnit: string, toUnit: string): [number, string] {
  if (value < 0) {
    const [v, u] = pprofScale(-value, fromUnit, toUnit);
    return [-v, u];
  }
  for (const t of UNIT_TYPES) {
    const from = sniffUnit(t, fromUnit);
    if (from === undefined) continue;
    const v = value * from.factor;
    if (toUnit === 'minimum' || toUnit === 'auto')
      return autoScale(t, v) ?? [v / t.defaultUnit.factor, t.defaultUnit.name];
    const to = sniffUnit(t, toUnit);
    return to === undefined ? [v / t.defaultUnit.factor, t.defaultUnit.name] : [v / to.factor, to.name];
  }
  switch (toUnit) {
    case 'count':
    case 'sample':
    case 'unit':
    case 'minimum':
    case 'auto':
      return [value, ''];
    default:
      return [value, toUnit];
  }
}

/**
 * Go's `%.Nf`: the exact binary value rounded, ties to even. JS's toFixed rounds exact ties away
 * from zero; an exact tie is a value whose exact decimal expansion ends with the 5 just past the
 * last digit kept (`toFixed(100)` shows the expansion exactly for the magnitudes formatted here).
 */
export function goFixed(v: number, digits: number): string {
  const s = v.toFixed(digits);
  if (!Number.isFinite(v) || Math.abs(v) >= 1e21) return s;
  const exact = Math.abs(v).toFixed(100);
  const dot = exact.indexOf('.');
  const frac = exact.slice(dot + 1);
  if (frac[digits] !== '5' || !/^0*$/.test(frac.slice(digits + 1))) return s;
  const kept = exact.slice(0, digits === 0 ? dot : dot + 1 + digits);
  const last = kept.charCodeAt(kept.length - 1) - 48;
  if (last % 2 === 1) return s; // odd: rounding away from zero reaches the even neighbour
  return (v < 0 ? '-' : '') + kept;
}

/** Go's `%.2g`-style formatting with `prec` significant digits (trailing zeros removed, exponent `e-05`). */
export function goG(v: number, prec: number): string {
  if (v === 0) return '0';
  const e = v.toExponential(prec - 1); // d.ddde±x, rounded (binary-exact, as Go)
  const [mant, expText] = e.split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= prec) {
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    const sign = exp < 0 ? '-' : '+';
    return `${m}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = goFixed(v, Math.max(0, prec - 1 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** measurement.ScaledLabel: `684ms`, `1.50MB`, `18`, `0`. */
export function pprofScaledLabel(value: number, fromUnit: string, toUnit: string): string {
  const [v, u] = pprofScale(value, fromUnit, toUnit);
  let sv = goFixed(v, 2);
  if (sv.endsWith('.00')) sv = sv.slice(0, -3);
  if (sv === '0' || sv === '-0') return '0';
  return sv + u;
}

/** measurement.Label: the value in the best unit of its kind. */
export function pprofLabel(value: number, unit: string): string {
  return pprofScaledLabel(value, unit, 'auto');
}

/** measurement.Percentage: `  100%`, `54.39%`, ` 0.29%`, `0.058%` (padded to 5 as pprof pads). */
export function pprofPercentage(value: number, total: number): string {
  const ratio = total !== 0 ? Math.abs(value / total) * 100 : 0;
  if (ratio >= 99.95 && ratio <= 100.05) return '  100%';
  if (ratio >= 1) return `${goFixed(ratio, 2).padStart(5)}%`;
  return `${goG(ratio, 2).padStart(5)}%`;
}
