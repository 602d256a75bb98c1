// The graph's toolbar: orientation, inversion, order, colour, the way back from the sandwich, and
// search (Ctrl+F; Enter / Shift+Enter move between the matched places the worker found).

import { useEffect, useRef, useState } from 'react';
import { nodeByFrames, totalOf } from '../core/model/calltree';
import { formatPercent, formatWeight, weightUnit } from '../core/text/units';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { useStore } from './store';
import type { SearchState } from './useSearch';
import { changeView, setInverted, setSampleType, showSandwich } from './view';

export function GraphToolbar({ analysis, result }: { analysis: Analysis; result: SearchState | null }) {
  const s = useStore();
  const input = useRef<HTMLInputElement>(null);
  const [cursor, setCursor] = useState(-1);
  // A new answer restarts the cycle: its places (`tops`, the worker's array), not the wrapper
  // useSearch makes at each render, which a step's own selection re-renders.
  const tops = result?.tops;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new answer restarts the cycle
  useEffect(() => setCursor(-1), [tops]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const step = (dir: 1 | -1) => {
    const places = tops ?? [];
    if (places.length === 0) return;
    const next = (cursor + dir + places.length) % places.length;
    setCursor(next);
    // Picked as a click picks it: the table's row, the source panel and the link follow.
    s.pickNode(nodeByFrames(analysis.tree, places[next]));
  };

  const whole = totalOf(analysis.tree, 0);
  // Orientation, order and colour are the flame graph's; the other views have none.
  const flame = s.view.panel === 'flame';
  return (
    <div className="graph-toolbar" role="toolbar" aria-label="Graph options">
      {flame && (
        <fieldset className="seg">
          <legend className="visually-hidden">Orientation</legend>
          {(['flame', 'icicle'] as const).map((o) => (
            <label key={o} className={s.view.orientation === o ? 'on' : undefined}>
              <input
                type="radio"
                name="orientation"
                checked={s.view.orientation === o}
                onChange={() => s.setLocalView({ orientation: o })}
              />
              {o === 'flame' ? 'Flame' : 'Icicle'}
            </label>
          ))}
        </fieldset>
      )}
      {/* The sandwich's halves already run both ways: inverting has nothing to show there. */}
      {s.view.mode !== 'sandwich' && !(s.view.mode === 'diff' && s.view.sandwich) && (
        <label className="check">
          <input
            type="checkbox"
            checked={s.view.inverted}
            onChange={(e) => void setInverted(e.currentTarget.checked)}
          />{' '}
          Inverted
        </label>
      )}
      {flame && (
        <label>
          Order{' '}
          <select
            value={s.childOrder}
            onChange={(e) => s.set({ childOrder: e.currentTarget.value as 'weight' | 'name' })}
          >
            <option value="weight">by weight</option>
            <option value="name">by name</option>
          </select>
        </label>
      )}
      {flame && (
        <label>
          Colour{' '}
          <select
            value={s.colorMode}
            onChange={(e) => s.set({ colorMode: e.currentTarget.value as 'module' | 'name' | 'heat' })}
          >
            <option value="module">by module</option>
            <option value="name">by name</option>
            <option value="heat">by self (heat)</option>
          </select>
        </label>
      )}
      <label>
        Frames{' '}
        <select
          aria-label="Frames (granularity)"
          value={s.view.granularity}
          onChange={(e) =>
            void changeView({ granularity: e.currentTarget.value as typeof s.view.granularity })
          }
          // A report's names were resolved when it was made, at its granularity: no binaries here.
          disabled={s.report !== null}
          title={
            s.report
              ? 'A report keeps the frames it was made with (its names were resolved then)'
              : 'Lines and inlined functions come from the DWARF of the binaries you drop'
          }
        >
          <option value="functions">functions</option>
          <option value="lines">lines</option>
          <option value="addresses">addresses</option>
        </select>
      </label>
      <label className="check" title="C++/Rust names whole, with template arguments and parameters">
        <input
          type="checkbox"
          checked={s.view.fullNames}
          onChange={(e) => void changeView({ fullNames: e.currentTarget.checked })}
        />{' '}
        Full names
      </label>
      <SampleTypePicker analysis={analysis} />
      {(analysis.profile.meta.dropFrames || s.view.keepDropFrames) && (
        <label
          className="check"
          title={`Frames matching ${analysis.profile.meta.dropFrames ?? ''} are dropped, as pprof does`}
        >
          <input
            type="checkbox"
            checked={s.view.keepDropFrames}
            onChange={(e) => void changeView({ keepDropFrames: e.currentTarget.checked })}
          />{' '}
          Keep allocator frames
        </label>
      )}
      {(s.view.mode === 'sandwich' || (s.view.mode === 'diff' && s.view.sandwich)) && (
        <button type="button" onClick={() => void showSandwich(null)}>
          Back to flame graph
        </button>
      )}
      <span className="spacer" />
      <div className="search">
        <input
          ref={input}
          type="search"
          placeholder="Search functions (Ctrl+F)"
          aria-label="Search functions"
          value={s.view.search.text}
          onChange={(e) => s.setLocalView({ search: { ...s.view.search, text: e.currentTarget.value } })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape') {
              s.setLocalView({ search: { ...s.view.search, text: '' } });
            }
          }}
          aria-invalid={result?.error ? true : undefined}
        />
        <label className="check" title="Treat the search as a regular expression">
          <input
            type="checkbox"
            checked={s.view.search.regex}
            onChange={(e) => s.setLocalView({ search: { ...s.view.search, regex: e.currentTarget.checked } })}
          />{' '}
          .*
        </label>
        <output className="search-count" aria-live="polite" data-testid="search-count">
          {result?.error
            ? `bad pattern: ${result.error}`
            : result
              ? result.samples === null
                ? 'matching…'
                : `matched: ${formatWeight(result.samples, weightUnit(analysis.profile.meta))} (${formatPercent(result.samples, whole)})${
                    cursor >= 0 ? ` · ${cursor + 1}/${result.tops.length}` : ''
                  }`
              : ''}
        </output>
      </div>
    </div>
  );
}

/** The value the graph weighs by, for profiles with several (pprof, heap, perf events). */
function SampleTypePicker({ analysis }: { analysis: Analysis }) {
  const { sampleTypes, sampleType } = analysis.profile.meta;
  if (sampleTypes.length < 2) return null;
  const current = sampleTypes.findIndex((t) => t.type === sampleType.type && t.unit === sampleType.unit);
  return (
    <label>
      Value{' '}
      <select
        value={current}
        onChange={(e) => void setSampleType(sampleTypes[Number(e.currentTarget.value)].type)}
      >
        {sampleTypes.map((t, i) => (
          <option key={`${t.type}/${t.unit}`} value={i}>
            {t.type} ({t.unit})
          </option>
        ))}
      </select>
    </label>
  );
}
