// The selected function's source: its lines with self and total samples, hottest highlighted (as
// `pprof -list`), with the text of the source files the user dropped (matched by path suffix);
// its sampled addresses; and its instructions (AssemblyView: pprof -disasm, weblist). Computed in
// the worker from the profile and the binaries' DWARF and code. The tab shown is in the link.

import { useEffect, useState } from 'react';
import { frameName, functionOf } from '../core/text/frame-text';
import { basename } from '../core/text/names';
import { formatPercent } from '../core/text/units';
import { FrameKind, Unnamed } from '../core/types';
import type { SourceTab } from '../core/view/schema';
import type { PageAnalysis as Analysis, SourceReply } from '../worker/protocol';
import { AssemblyView } from './AssemblyView';
import { useStore } from './store';
import { type TabItem, TabList } from './TabList';
import { sourceOf } from './view';

const CONTEXT = 3;

const SOURCE_TABS: TabItem<SourceTab>[] = [
  { id: 'lines', label: 'Lines' },
  { id: 'addresses', label: 'Addresses' },
  { id: 'assembly', label: 'Assembly' },
];

export function SourcePanel({ analysis }: { analysis: Analysis }) {
  const frame = useStore((s) => s.selectedFrame);
  // The frame's function (a line or address frame's too): what the listing is of.
  const frames = analysis.profile.frames;
  const name = frame !== null ? (functionOf(frames, frame) ?? frameName(frames, frame)) : null;
  const [reply, setReply] = useState<SourceReply | null>(null);
  const tab = useStore((s) => s.view.sourceTab);
  const setTab = (t: SourceTab) => useStore.getState().setLocalView({ sourceTab: t });
  const unnamed = frame !== null && (frames.unnamed?.[frame] ?? Unnamed.Named) !== Unnamed.Named;
  // At Frames = addresses, the selected frame's place in its module's file.
  const address =
    frame !== null && frames.kind[frame] === FrameKind.Address
      ? (frames.addrHi?.[frame] ?? 0) * 2 ** 32 + (frames.addrLo?.[frame] ?? 0)
      : null;
  // A new analysis (symbols, sample type) asks again.
  useEffect(() => {
    setReply(null);
    if (!name || analysis.functionsPending) return;
    let live = true;
    sourceOf(name).then(
      (r) => live && setReply(r),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [name, analysis]);
  if (!name) return null;
  return (
    <section className="source" aria-label="Source">
      <h2>Source of {name}</h2>
      <TabList tabs={SOURCE_TABS} selected={tab} onChoose={setTab} label={`Source of ${name}`} />
      {tab === 'assembly' ? (
        unnamed ? (
          <p className="muted">{name} is code no symbol names: there is no function to disassemble.</p>
        ) : (
          <AssemblyView name={name} address={address} />
        )
      ) : !reply ? (
        <p className="muted">reading…</p>
      ) : !reply.hasLines ? (
        <p className="muted">
          No line information: drop the binary built with <code>-g</code> (or its debug file) to see lines and
          inlined functions.
        </p>
      ) : tab === 'lines' ? (
        <Lines reply={reply} />
      ) : (
        <Addresses reply={reply} />
      )}
    </section>
  );
}

function Lines({ reply }: { reply: SourceReply }) {
  const files = [...new Set(reply.lines.map((l) => l.file))];
  const hottest = Math.max(...reply.lines.map((l) => l.self), 0);
  return (
    <>
      {files.map((file) => {
        const rows = reply.lines.filter((l) => l.file === file);
        const text = reply.texts[file]?.split('\n');
        const byLine = new Map(rows.map((r) => [r.line, r]));
        const first = Math.max(1, rows[0].line - CONTEXT);
        const last = text ? Math.min(text.length, rows[rows.length - 1].line + CONTEXT) : 0;
        const numbers = text
          ? Array.from({ length: last - first + 1 }, (_, i) => first + i)
          : rows.map((r) => r.line);
        return (
          <div key={file} className="source-file">
            <h3 title={file}>
              {file ? basename(file) : '(unknown file)'}
              {!text && file && <span className="muted"> — drop {basename(file)} to see its text</span>}
            </h3>
            <table className="source-lines" data-testid="source-lines">
              <Head first={['Line']} last={text ? ['Source'] : []} />
              <tbody>
                {numbers.map((n) => {
                  const r = byLine.get(n);
                  const hot = r && hottest > 0 && r.self === hottest;
                  return (
                    <tr key={n} className={hot ? 'hot' : r ? 'sampled' : undefined}>
                      <td className="num">{n}</td>
                      <td className="num">{r && r.self > 0 ? r.self : ''}</td>
                      <td className="num">{r ? r.total : ''}</td>
                      {text && (
                        <td className="code">
                          <code>{text[n - 1]}</code>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        );
      })}
      <p className="muted">
        self {reply.self} · total {reply.total} ({formatPercent(reply.self, reply.total)} of its samples are
        its own)
      </p>
    </>
  );
}

/** A listing's header: its own columns around the Self and Total counts. */
function Head({ first, last }: { first: string[]; last: string[] }) {
  return (
    <thead>
      <tr>
        {first.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        <th scope="col" className="num">
          Self
        </th>
        <th scope="col" className="num">
          Total
        </th>
        {last.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

function Addresses({ reply }: { reply: SourceReply }) {
  return (
    <table className="source-lines" data-testid="source-addresses">
      <Head first={['Address', 'Line']} last={[]} />
      <tbody>
        {reply.addresses.map((a) => (
          <tr key={a.address}>
            <td>
              <code>0x{a.address}</code>
            </td>
            <td>{a.file ? `${basename(a.file)}:${a.line}` : ''}</td>
            <td className="num">{a.self || ''}</td>
            <td className="num">{a.total}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
