// HTML reports, the app's side: making one (Export → HTML report: the single-file app fetched from
// report-template.html, the worker's snapshots of the open profiles, the view on screen) and opening
// the one this page is (at startup: its profiles through the same worker path as dropped files,
// then its view). A report never uses the network: its page's CSP allows none.

import { listingsToJson } from '../core/disasm/listing-json';
import { frameName, functionOf } from '../core/text/frame-text';
import { Unnamed } from '../core/types';
import { encodeView, type ProfileSlot, type ViewState } from '../core/view/schema';
import { type ReportData, type ReportDisassembly, type ReportProfile, reportHtml } from '../export/report';
import type { FunctionListing, PageAnalysis } from '../worker/protocol';
import { openBlobs } from './open';
import { useStore } from './store';
import { disassemblyOf, snapshotFiles } from './view';

/** The built single-file app, next to index.html (precached by the service worker). */
const TEMPLATE = 'report-template.html';

async function fetchTemplate(): Promise<string> {
  let r: Response;
  try {
    r = await fetch(new URL(TEMPLATE, document.baseURI));
  } catch {
    throw new Error(`the report template (${TEMPLATE}) could not be read: offline before it was cached?`);
  }
  if (!r.ok) throw new Error(`the report template (${TEMPLATE}) is missing: it is made by npm run build`);
  return r.text();
}

/**
 * The view as a report carries it: sources are the report's own profiles (no workspace id, no
 * links, no binaries: the names are in the profiles), placed files already placed.
 */
export function reportView(view: ViewState): ViewState {
  const slot = (s: ProfileSlot): ProfileSlot => (s.sampleType ? { sampleType: s.sampleType } : {});
  const { main, base } = view.profiles;
  return {
    ...view,
    workspace: undefined,
    profiles: base ? { main: slot(main), base: slot(base) } : { main: slot(main) },
  };
}

/** The HTML report of the open profile(s) shown with `view` (the view on screen, zoom included). */
export async function makeReport(view: ViewState): Promise<Blob> {
  const [template, files] = await Promise.all([fetchTemplate(), snapshotFiles()]);
  const names = files.map((f) => f.name);
  const analysis = useStore.getState().analysis;
  const report: ReportData = {
    title: names.length > 1 ? `${names[0]} compared with ${names[1]}` : names[0],
    created: new Date().toISOString(),
    hash: encodeView(reportView(view)),
    profiles: files.map((f) => ({ slot: f.slot, name: f.name, data: f.bytes })),
    ...(analysis && { disassembly: await heaviestDisassembly(analysis) }),
  };
  return new Blob(reportHtml(template, report), { type: 'text/html;charset=utf-8' });
}

/** At most this many functions' disassembly, and about this many bytes of it, go into a report. */
export const REPORT_DISASSEMBLY = { functions: 20, bytes: 2 << 20 };

/**
 * The disassembly of the shown profile's heaviest functions (by self, as the table's default order),
 * from the binaries the worker has: a report holds none, so its Assembly tab shows these. None
 * without binaries.
 */
async function heaviestDisassembly(a: PageAnalysis): Promise<ReportDisassembly[]> {
  const { frames } = a.profile;
  const order = a.functions.bySelf ?? [];
  const out: ReportDisassembly[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const f of order) {
    if (out.length >= REPORT_DISASSEMBLY.functions || bytes >= REPORT_DISASSEMBLY.bytes) break;
    if (a.functions.self[f] <= 0) break;
    if ((frames.unnamed?.[f] ?? Unnamed.Named) !== Unnamed.Named) continue;
    const name = functionOf(frames, f) ?? frameName(frames, f);
    if (seen.has(name)) continue;
    seen.add(name);
    let listings: FunctionListing[];
    try {
      listings = await disassemblyOf(name, 'att');
    } catch {
      // No binaries (none for any function), or none holding this one.
      break;
    }
    if (listings.length === 0) continue;
    out.push({ name, listings });
    bytes += JSON.stringify(listingsToJson(listings)).length;
  }
  return out;
}

/**
 * Opens the report this page carries with `initial` (its own view, or the URL's after a reload):
 * the profile, then its baseline if it has one (the comparison), as a link opens them. Its
 * profiles are Blobs: a crash or a cancel opens them again.
 */
export async function openReport(report: ReportData, initial: ViewState): Promise<void> {
  const disassembly = new Map((report.disassembly ?? []).map((d) => [d.name, d.listings]));
  useStore.setState({ report: { title: report.title, created: report.created, disassembly } });
  const blobOf = (p: ReportProfile) => ({ name: p.name, blob: new Blob([p.data as BlobPart]) });
  const main = report.profiles.find((p) => p.slot === 'main')!;
  const base = report.profiles.find((p) => p.slot === 'base');
  const view: ViewState = {
    ...initial,
    profiles: {
      main: { ...initial.profiles.main, source: { kind: 'file', name: main.name } },
      ...(base && { base: { ...initial.profiles.base, source: { kind: 'file', name: base.name } } }),
    },
  };
  if (!base && view.mode === 'diff') view.mode = 'graph';
  await openBlobs(blobOf(main), base ? blobOf(base) : null, view);
}
