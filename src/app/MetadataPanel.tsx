// The open profile's metadata: file, format, sample type and period, samples, header lines,
// mappings; in a comparison, both profiles side by side.

import { useState } from 'react';
import { formatBytes, formatCount, formatTime, formatValue } from '../core/text/units';
import type { FoldedMeta } from '../core/types';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { useStore } from './store';

/** The facts every profile has, as label/value rows. */
function metaRows(m: FoldedMeta): [string, string][] {
  const rows: [string, string][] = [['Format', m.format]];
  if (m.wordSize) rows.push(['Word size', `${m.wordSize}-bit`]);
  if (m.byteOrder) rows.push(['Byte order', `${m.byteOrder} endian`]);
  if (m.sampleTypes.length > 1 || m.sampleType.type !== 'samples')
    rows.push(['Values', `${m.sampleType.type} (${m.sampleType.unit})`]);
  if (m.period) {
    const p = m.period;
    rows.push(['Period', formatValue(p.value, { sampleType: p.type, periodUs: 0 })]);
  } else {
    rows.push([
      'Period',
      m.periodUs > 0
        ? `${formatCount(m.periodUs)} µs (${formatCount(1e6 / m.periodUs)} Hz)`
        : 'unknown (counts only)',
    ]);
  }
  const total =
    m.sampleType.type === 'samples'
      ? formatCount(m.totalSamples)
      : formatValue(m.totalSamples, { sampleType: m.sampleType, periodUs: 0 });
  rows.push([m.sampleType.type === 'samples' ? 'Samples' : 'Total', total]);
  if (m.samplingTimeUs !== undefined && m.sampleType.unit === 'count')
    rows.push(['Sampling time', formatTime(m.samplingTimeUs)]);
  if (m.durationNs !== undefined) rows.push(['Duration', formatTime(m.durationNs / 1000)]);
  if (m.timeNs !== undefined) rows.push(['Recorded', new Date(m.timeNs / 1e6).toISOString()]);
  if (m.dropFrames) rows.push(['Drop frames', m.dropFrames]);
  if (m.keepFrames) rows.push(['Keep frames', m.keepFrames]);
  for (const c of m.comments ?? []) rows.push(['Comment', c]);
  return rows;
}

function Rows({ rows }: { rows: [string, string][] }) {
  return (
    <dl>
      {rows.map(([k, v], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: labels repeat (comments)
        <div key={`${k}-${i}`}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Mapped objects listed at first; each "more" shows this many again. */
const MAPPINGS_SHOWN = 100;
const MAPPINGS_MORE = 1000;

/**
 * The mapped objects, the first hundred and more on request: a file may name 200,000 (a list of
 * them all took the page's thread for seconds).
 */
function MappingList({ mappings }: { mappings: FoldedMeta['mappings'] }) {
  const [shown, setShown] = useState(MAPPINGS_SHOWN);
  const rest = mappings.length - shown;
  return (
    <ul className="mappings">
      {mappings.slice(0, shown).map((mp, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a file may map one range twice
        <li key={i} title={`${mp.start}–${mp.end} offset ${mp.offset}`}>
          <code>{mp.start}</code> {mp.path || '(anonymous)'}
        </li>
      ))}
      {rest > 0 && (
        <li>
          <button type="button" className="link small" onClick={() => setShown(shown + MAPPINGS_MORE)}>
            {formatCount(rest)} more{rest > MAPPINGS_MORE ? `: show ${formatCount(MAPPINGS_MORE)} more` : ''}
          </button>
        </li>
      )}
    </ul>
  );
}

export function MetadataPanel({ analysis }: { analysis: Analysis }) {
  const fileSize = useStore((s) => s.fileSize);
  // A report's profile is a snapshot of it, not the file: its size would mislead.
  const inReport = useStore((s) => s.report !== null);
  const m = analysis.profile.meta;
  const base = analysis.diff?.baseMeta;
  const file = inReport ? `${m.fileName} (in this report)` : `${m.fileName} (${formatBytes(fileSize)})`;
  const rows: [string, string][] = [['File', file], ...metaRows(m)];
  // A raw preview's stacks and frames are only the coarse tree's: the real counts come with the parse.
  const counting = analysis.functionsPending ? 'counting…' : null;
  if (!base) {
    rows.push(['Unique stacks', counting ?? formatCount(analysis.profile.stackCount)]);
    // Those with samples in this view (a transform keeps the frame table of what it transforms).
    const functions = analysis.functions.bySelf?.length ?? analysis.profile.frames.count;
    rows.push(['Functions', counting ?? formatCount(functions)]);
  }
  for (const [k, v] of Object.entries(m.extra ?? {})) rows.push([k, v]);
  const t = analysis.timings;
  rows.push([
    'Read in',
    counting
      ? `first picture${analysis.sampledEvery ? ` (from 1 in ${formatCount(analysis.sampledEvery)} records)` : ''} in ${(t.parseMs + t.foldMs + t.treeMs).toFixed(0)} ms; parsing…`
      : `parse ${t.parseMs.toFixed(0)} ms · fold ${t.foldMs.toFixed(0)} ms · tree ${t.treeMs.toFixed(0)} ms`,
  ]);
  return (
    <section className="meta" aria-label="Profile metadata" data-timings={JSON.stringify(t)}>
      {base ? (
        <div className="meta-sides">
          <div data-testid="meta-baseline">
            <h2>Baseline</h2>
            <Rows
              rows={[
                ['File', base.fileName],
                ...metaRows(base),
                ...Object.entries(base.extra ?? {}),
                ['Mapped objects', String(base.mappings.length)],
              ]}
            />
          </div>
          <div data-testid="meta-comparison">
            <h2>Comparison</h2>
            <Rows rows={[...rows, ['Mapped objects', String(m.mappings.length)]]} />
          </div>
        </div>
      ) : (
        <>
          <h2>Profile</h2>
          <Rows rows={rows} />
        </>
      )}
      {m.headerLines && m.headerLines.length > 0 && (
        <>
          <h3>Header</h3>
          <pre className="header-lines">
            {m.headerLines.map((l) => `${l.key} ${l.value}${l.known ? '' : '   (unknown line)'}`).join('\n')}
          </pre>
        </>
      )}
      <h3>Mapped objects ({formatCount(m.mappings.length)})</h3>
      <MappingList mappings={m.mappings} />
    </section>
  );
}
