// The context menu of a graph frame or a table row: transforms and the sandwich.

import { useEffect, useRef } from 'react';
import { parentOf } from '../core/model/calltree';
import type { Transform } from '../core/model/transforms';
import { frameLabel, frameName, functionOf } from '../core/text/frame-text';
import { basename, shortName } from '../core/text/names';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { useStore } from './store';
import { addTransform, showSandwichOf } from './view';

export interface MenuTarget {
  frame: number;
  /** The graph node right-clicked, for "focus on subtree"; null from the table. */
  node: number | null;
  x: number;
  y: number;
  /** A graph of its own (a sandwich half), whose frame ids `frame` and `node` are; else the main one. */
  graph?: Pick<Analysis, 'profile' | 'tree'>;
}

export function ContextMenu({
  target,
  analysis,
  onClose,
}: {
  target: MenuTarget;
  analysis: Analysis;
  onClose: () => void;
}) {
  const add = addTransform;
  const ref = useRef<HTMLDivElement>(null);
  const { profile, tree } = target.graph ?? analysis;
  // Transforms go by the frame's name; the menu says it as its bar does.
  const name = frameName(profile.frames, target.frame);
  const label = shortName(frameLabel(profile.frames, target.frame), 40);
  const module = profile.modules[profile.frames.module[target.frame]] ?? '';
  const items: { label: string; run: () => void }[] = [
    {
      label: `Focus on function ${label}`,
      run: () => void add({ kind: 'focus-function', name }),
    },
  ];
  // A sandwich half's paths start at the function, not at the root: no subtree focus there.
  if (target.node !== null && !target.graph && !useStore.getState().view.inverted) {
    const path: string[] = [];
    for (let v = target.node; v > 0; v = parentOf(tree, v))
      path.push(frameName(profile.frames, tree.frame[v]));
    path.reverse();
    items.push({ label: 'Focus on subtree', run: () => void add({ kind: 'focus-subtree', path }) });
  }
  items.push({
    label: `Hide function ${label}`,
    run: () => void add({ kind: 'hide-function', name }),
  });
  if (module) {
    items.push({
      label: `Merge module ${basename(module)}`,
      run: () => void add({ kind: 'merge-module', module } satisfies Transform),
    });
  }
  items.push({ label: 'Collapse recursion', run: () => void add({ kind: 'collapse-recursion', name }) });
  items.push({ label: 'Show sandwich (callers and callees)', run: () => void showSandwichOf(name) });
  const fn = functionOf(profile.frames, target.frame) ?? name;
  // The function's instructions (the source panel's Assembly tab), from the dropped binary.
  if (!target.graph && useStore.getState().symbols) {
    items.push({
      label: `Disassemble ${shortName(fn, 40)}`,
      run: () => {
        const st = useStore.getState();
        st.selectFrame(target.frame);
        st.setLocalView({ sourceTab: 'assembly' });
      },
    });
  }
  items.push({ label: 'Copy function name', run: () => void navigator.clipboard?.writeText(fn) });

  // Escape and a choice give the focus back to where the menu was opened from (the graph, the
  // table), if it is still on the page (a sandwich replaces the graph): else it would be lost on
  // the page's body, and the keys that move in the graph or the table would do nothing.
  const opener = useRef<Element | null>(document.activeElement);
  const closeAndReturn = () => {
    onClose();
    if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
  };
  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [onClose]);

  const onKey = (e: React.KeyboardEvent) => {
    const buttons = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') closeAndReturn();
    else if (e.key === 'ArrowDown') buttons[(i + 1) % buttons.length]?.focus();
    else if (e.key === 'ArrowUp') buttons[(i - 1 + buttons.length) % buttons.length]?.focus();
    else return;
    e.preventDefault();
  };

  // Inside the window, whatever asked for it: the menu is never placed off screen.
  const style = {
    left: Math.max(0, Math.min(target.x, window.innerWidth - 300)),
    top: Math.max(0, Math.min(target.y, window.innerHeight - 40 * items.length)),
  };
  return (
    <div
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={`Actions for ${name}`}
      style={style}
      onKeyDown={onKey}
    >
      {items.map((it) => (
        <button
          key={it.label}
          type="button"
          role="menuitem"
          onClick={() => {
            it.run();
            closeAndReturn();
          }}
        >
          {it.label}
        </button>
      ))}
    </div>
  );
}
