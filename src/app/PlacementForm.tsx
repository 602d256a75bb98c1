// A profile without mappings (its mapped-objects text lost): where each dropped ELF file was
// loaded. Files linked at fixed addresses are placed where they were linked; position-independent
// ones at a load address the user confirms or types, prefilled with the worker's guess.

import { useState } from 'react';
import type { PlacementHint } from '../core/symbols/placement';
import { parseBase } from '../core/symbols/placement';
import { useStore } from './store';
import { setPlacement } from './view';

function howText(h: PlacementHint): string {
  if (h.fixed) return 'linked at fixed addresses: placed where it was linked';
  if (h.how === 'calls')
    return `guessed: at this address ${h.calls} of ${h.callers} return addresses follow a call instruction`;
  return 'a guess the code does not confirm: type the address the file was loaded at (/proc/PID/maps: start − offset of its first mapping)';
}

function Placement({ hint, used }: { hint: PlacementHint; used: string | undefined }) {
  const [text, setText] = useState(used ?? hint.base);
  const valid = parseBase(text) !== null;
  const id = `place-${hint.file}`;
  return (
    <li className={used ? 'ok' : 'missing'}>
      <label htmlFor={id}>
        {used ? '✓' : '–'} {hint.file} <span className="muted">load address</span>
      </label>{' '}
      <input
        id={id}
        className="place-base"
        value={text}
        spellCheck={false}
        aria-invalid={!valid}
        onChange={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && valid) void setPlacement(hint.file, `0x${parseBase(text)!.toString(16)}`);
        }}
      />{' '}
      <button
        type="button"
        disabled={!valid}
        onClick={() => void setPlacement(hint.file, `0x${parseBase(text)!.toString(16)}`)}
      >
        {used ? 'Move' : 'Apply'}
      </button>
      {used && !hint.fixed && (
        <button type="button" onClick={() => void setPlacement(hint.file, null)}>
          Remove
        </button>
      )}
      <div className="muted small">
        {howText(hint)}; covers {hint.covered} of {hint.addresses} sampled addresses
      </div>
    </li>
  );
}

/** The placement of dropped ELF files in a profile that has no mappings; nothing otherwise. */
export function PlacementForm() {
  const placement = useStore((s) => s.symbols?.placement);
  if (!placement) return null;
  const usedOf = new Map(placement.used.map((u) => [u.file, u.base]));
  return (
    <section className="placements" aria-label="Placement">
      <p className="muted">
        This profile lists no mapped objects (its end is missing): say where each file was loaded to name its
        code.
      </p>
      <ul className="sym-list">
        {placement.hints.map((h) => (
          <Placement key={`${h.file}@${usedOf.get(h.file) ?? ''}`} hint={h} used={usedOf.get(h.file)} />
        ))}
      </ul>
    </section>
  );
}
