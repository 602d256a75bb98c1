// HTML reports: the single-file app (dist/report-template.html, vite.report.config.ts) with the
// profiles and the view in it. The data is one inert element the page reads at startup,
//
//   <script type="application/json" id="flamelens-report">{"version":1,"title":…,"created":…,
//     "hash":"#…","disassembly":[{"name":…,"listings":[…]}],
//     "profiles":[{"slot":"main","name":"out.prof","base64":"…"}]}</script>
//
// put before the template's last </body> (its inline script is in <head>). Each profile is a
// snapshot file (core/formats/snapshot.ts: the parsed profile with its symbols' names written in),
// in base64; `hash` is the view as the URL says it. Every `<` in the JSON is written \u003c, so no
// name can end the element. No DOM here but `readReport`'s one lookup.

import type { FunctionListing } from '../core/disasm/disasm';
import { listingsFromJson, listingsToJson } from '../core/disasm/listing-json';

export const REPORT_ELEMENT_ID = 'flamelens-report';
const VERSION = 1;

export interface ReportProfile {
  slot: 'main' | 'base';
  /** The profile's file name (shown as the file). */
  name: string;
  /** A snapshot file (gzipped). */
  data: Uint8Array;
}

/** A function's disassembly as the app showed it (a report holds no binary to disassemble). */
export interface ReportDisassembly {
  /** The function as the Assembly tab asks for it (the frame's function name). */
  name: string;
  listings: FunctionListing[];
}

export interface ReportData {
  /** What the report shows, for its header (the file name, or both of a comparison). */
  title: string;
  /** When it was made (ISO 8601). */
  created: string;
  /** The view: a URL hash (core/view/schema.ts encodeView), local sources left out. */
  hash: string;
  profiles: ReportProfile[];
  /** The heaviest functions' disassembly, when the app had their binaries (AT&T syntax). */
  disassembly?: ReportDisassembly[];
}

/** JSON text safe inside a <script> element: no `<` at all (`</script>`, `<!--`). */
const inert = (json: string) => json.replace(/</g, '\\u003c');

/** Base64 in parts (multiples of 3 bytes, so the parts join to the base64 of the whole). */
function base64Parts(bytes: Uint8Array, chunk = 3 << 15): string[] {
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    const part = bytes.subarray(i, Math.min(bytes.length, i + chunk));
    let bin = '';
    for (let k = 0; k < part.length; k += 0x2000)
      bin += String.fromCharCode(...part.subarray(k, Math.min(part.length, k + 0x2000)));
    out.push(btoa(bin));
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * The report page: `template` with the data element before its last `</body>`, as parts for a Blob
 * (a large profile's base64 is not joined into one string here).
 */
export function reportHtml(template: string, report: ReportData): string[] {
  const at = template.lastIndexOf('</body>');
  if (at < 0) throw new Error('the report template is not a Flamelens page');
  const head = inert(
    JSON.stringify({
      version: VERSION,
      title: report.title,
      created: report.created,
      hash: report.hash,
      ...(report.disassembly && {
        disassembly: report.disassembly.map((d) => ({ name: d.name, listings: listingsToJson(d.listings) })),
      }),
    }),
  );
  const parts = [
    template.slice(0, at),
    `<script type="application/json" id="${REPORT_ELEMENT_ID}">`,
    `${head.slice(0, -1)},"profiles":[`,
  ];
  report.profiles.forEach((p, i) => {
    parts.push(
      `${i > 0 ? ',' : ''}${inert(JSON.stringify({ slot: p.slot, name: p.name })).slice(0, -1)},"base64":"`,
    );
    parts.push(...base64Parts(p.data), '"}');
  });
  parts.push(']}</script>\n', template.slice(at));
  return parts;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** The data of a report element's text; throws an Error saying what is wrong. */
export function parseReport(text: string): ReportData {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    throw new Error('the report data is damaged (not JSON)');
  }
  const o = j as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || o.version !== VERSION)
    throw new Error('the report data is of an unknown version');
  if (!isString(o.title) || !isString(o.created) || !isString(o.hash) || !Array.isArray(o.profiles))
    throw new Error('the report data is damaged');
  const profiles = o.profiles.map((x: unknown): ReportProfile => {
    const p = x as Record<string, unknown>;
    if (typeof p !== 'object' || p === null || (p.slot !== 'main' && p.slot !== 'base'))
      throw new Error('the report data is damaged (a profile without its slot)');
    if (!isString(p.name) || !isString(p.base64)) throw new Error('the report data is damaged');
    try {
      return { slot: p.slot, name: p.name, data: fromBase64(p.base64) };
    } catch {
      throw new Error(`the report's profile ${p.name} is damaged (not base64)`);
    }
  });
  if (profiles.filter((p) => p.slot === 'main').length !== 1 || profiles.length > 2)
    throw new Error('the report data is damaged (it must hold one profile, or two to compare)');
  // Disassembly that is not as the app writes it is left out: the profiles still open.
  const disassembly = Array.isArray(o.disassembly)
    ? o.disassembly.flatMap((x: unknown): ReportDisassembly[] => {
        const d = x as Record<string, unknown> | null;
        const listings = typeof d === 'object' && d !== null ? listingsFromJson(d.listings) : null;
        return listings && d && isString(d.name) ? [{ name: d.name, listings }] : [];
      })
    : undefined;
  return { title: o.title, created: o.created, hash: o.hash, profiles, ...(disassembly && { disassembly }) };
}

/** The report this page carries, or null for the app itself. Throws when it is damaged. */
export function readReport(doc: Document): ReportData | null {
  const el = doc.getElementById(REPORT_ELEMENT_ID);
  return el ? parseReport(el.textContent ?? '') : null;
}
