// The selected function's machine code, as `pprof -disasm` and weblist show it: its instructions
// (from the dropped binary, decoded in the worker) with the samples each took, hottest
// highlighted, grouped under the source lines they come from when DWARF says; jump targets are
// links to the instruction they land on. At Frames = addresses, the selected address (its offset
// in its module's file, as an address frame holds it) is marked and scrolled to.

import { useEffect, useMemo, useState } from 'react';
import { basename } from '../core/text/names';
import { formatPercent } from '../core/text/units';
import type { FunctionListing } from '../worker/protocol';
import { useStore } from './store';
import { disassemblyOf } from './view';

export function AssemblyView({ name, address }: { name: string; address: number | null }) {
  const [listings, setListings] = useState<FunctionListing[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [syntax, setSyntax] = useState<'att' | 'intel'>('att');
  const inReport = useStore((s) => s.report !== null);
  useEffect(() => {
    setListings(null);
    setError(null);
    let live = true;
    disassemblyOf(name, syntax).then(
      (l) => live && setListings(l),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [name, syntax]);
  if (error) return <p className="muted">{error}</p>;
  if (!listings) return <p className="muted">disassembling…</p>;
  if (listings.length === 0)
    return (
      <p className="muted">
        No code of {name} with samples in the dropped binaries (drop the binary that holds it: a separate
        debug file holds no code).
      </p>
    );
  return (
    <div className="assembly" data-testid="assembly">
      {/* A report carries AT&T syntax only. */}
      {!inReport && (
        <label className="check">
          <input
            type="checkbox"
            checked={syntax === 'intel'}
            onChange={(e) => setSyntax(e.target.checked ? 'intel' : 'att')}
          />
          Intel syntax
        </label>
      )}
      {listings.map((l) => (
        <Listing key={`${l.symbol.rawName}@${l.symbol.start}`} listing={l} address={address} />
      ))}
    </div>
  );
}

function Listing({ listing: l, address }: { listing: FunctionListing; address: number | null }) {
  const hottest = useMemo(() => l.instructions.reduce((m, i) => Math.max(m, i.flat), 0), [l]);
  const id = (k: number) => `asm-${l.symbol.start.toString(16)}-${k}`;
  // weblist's order: each source line, then its instructions; instructions without one last.
  const groups = useMemo(() => {
    const out: { line: number; ins: number[] }[] = l.lines.map((s, k) => ({ line: k, ins: s.instructions }));
    const loose = l.instructions.flatMap((ins, k) => (ins.line < 0 ? [k] : []));
    if (loose.length > 0) out.push({ line: -1, ins: loose });
    return out;
  }, [l]);
  const pct = (v: number) => (l.cum > 0 ? formatPercent(v, l.cum) : '');
  return (
    <div className="asm-function">
      <h3 title={l.symbol.name}>
        {l.symbol.name} <span className="muted">({l.arch})</span>{' '}
        <span className="muted">
          flat {l.flat} · cum {l.cum}
        </span>
      </h3>
      <table className="asm" data-testid="asm-instructions">
        <thead>
          <tr>
            <th scope="col">Flat</th>
            <th scope="col">Cum</th>
            <th scope="col">Address</th>
            <th scope="col">Instruction</th>
          </tr>
        </thead>
        {groups.map((g) => {
          const src = g.line >= 0 ? l.lines[g.line] : null;
          return (
            <tbody key={g.line}>
              {src && (
                <tr className="asm-source">
                  <td>{src.flat || ''}</td>
                  <td>{src.cum || ''}</td>
                  <td colSpan={2} title={src.file}>
                    {basename(src.file)}:{src.line}
                    {src.function && <span className="muted"> {src.function}</span>}
                  </td>
                </tr>
              )}
              {g.ins.map((k) => {
                const ins = l.instructions[k];
                const hot = hottest > 0 && ins.flat === hottest;
                const here =
                  address !== null && ins.address <= address && address < ins.address + BigInt(ins.size);
                const cls = [hot ? 'hot' : '', here ? 'here' : ''].filter(Boolean).join(' ') || undefined;
                return (
                  <tr key={k} id={id(k)} className={cls} data-address={ins.addressText}>
                    <td title={pct(ins.flat)}>{ins.flat || '.'}</td>
                    <td title={pct(ins.cum)}>{ins.cum || '.'}</td>
                    <td>
                      <code>{ins.addressText}:</code>
                    </td>
                    <td>
                      <code>
                        {ins.targetIndex >= 0 ? (
                          <>
                            {ins.mnemonic}{' '}
                            <a
                              href={`#${id(ins.targetIndex)}`}
                              onClick={(e) => {
                                e.preventDefault();
                                document
                                  .getElementById(id(ins.targetIndex))
                                  ?.scrollIntoView({ block: 'center' });
                              }}
                            >
                              {ins.text.slice(ins.mnemonic.length).trim()}
                            </a>
                          </>
                        ) : (
                          ins.text
                        )}
                      </code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          );
        })}
      </table>
    </div>
  );
}
