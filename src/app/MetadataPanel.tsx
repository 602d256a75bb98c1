// The open profile's metadata: file, format, period, samples, header lines, mappings.

import { formatBytes, formatCount, formatTime } from '../core/text/format';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { useStore } from './store';

export function MetadataPanel({ analysis }: { analysis: Analysis }) {
  const fileSize = useStore((s) => s.fileSize);
  const m = analysis.profile.meta;
  const rows: [string, string][] = [
    ['File', `${m.fileName} (${formatBytes(fileSize)})`],
    ['Format', m.format],
  ];
  if (m.wordSize) rows.push(['Word size', `${m.wordSize}-bit`]);
  if (m.byteOrder) rows.push(['Byte order', `${m.byteOrder} endian`]);
  rows.push([
    'Period',
    m.periodUs > 0
      ? `${formatCount(m.periodUs)} µs (${formatCount(1e6 / m.periodUs)} Hz)`
      : 'unknown (counts only)',
  ]);
  rows.push(['Samples', formatCount(m.totalSamples)]);
  if (m.samplingTimeUs !== undefined) rows.push(['Sampling time', formatTime(m.samplingTimeUs)]);
  // A raw preview's stacks and frames are only the coarse tree's: the real counts come with the parse.
  const counting = analysis.functionsPending ? 'counting…' : null;
  rows.push(['Unique stacks', counting ?? formatCount(analysis.profile.stackCount)]);
  rows.push(['Functions', counting ?? formatCount(analysis.profile.frames.count)]);
  for (const [k, v] of Object.entries(m.extra ?? {})) rows.push([k, v]);
  const t = analysis.timings;
  rows.push([
    'Read in',
    counting
      ? `first picture in ${(t.parseMs + t.foldMs + t.treeMs).toFixed(0)} ms; parsing…`
      : `parse ${t.parseMs.toFixed(0)} ms · fold ${t.foldMs.toFixed(0)} ms · tree ${t.treeMs.toFixed(0)} ms`,
  ]);
  return (
    <section className="meta" aria-label="Profile metadata" data-timings={JSON.stringify(t)}>
      <h2>Profile</h2>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {m.headerLines && m.headerLines.length > 0 && (
        <>
          <h3>Header</h3>
          <pre className="header-lines">
            {m.headerLines.map((l) => `${l.key} ${l.value}${l.known ? '' : '   (unknown line)'}`).join('\n')}
          </pre>
        </>
      )}
      <h3>Mapped objects ({m.mappings.length})</h3>
      <ul className="mappings">
        {m.mappings.map((mp) => (
          <li key={`${mp.start}-${mp.path}`} title={`${mp.start}–${mp.end} offset ${mp.offset}`}>
            <code>{mp.start}</code> {mp.path || '(anonymous)'}
          </li>
        ))}
      </ul>
    </section>
  );
}
