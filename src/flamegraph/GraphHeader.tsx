// A flame graph's header bar: its title, the zoom path from the root to the focus (each a button
// back to it), Reset, and the controls the graph's owner puts there.

import { useMemo } from 'react';
import { type CallTree, parentOf } from '../core/model/calltree';
import { shortName } from '../core/text/names';

export function GraphHeader(props: {
  title: string;
  tree: CallTree;
  focus: number;
  onFocus: (node: number) => void;
  nameOf: (node: number) => string;
  children?: React.ReactNode;
}) {
  const { tree, focus, onFocus, nameOf } = props;
  const crumbs = useMemo(() => {
    const out: number[] = [];
    for (let v = focus; v > 0; v = parentOf(tree, v)) out.push(v);
    return out.reverse();
  }, [tree, focus]);
  return (
    <div className="fg-bar">
      <span className="fg-title">{props.title}</span>
      <nav className="breadcrumbs" aria-label="Zoom path">
        <button type="button" onClick={() => onFocus(0)} aria-current={focus === 0 ? 'true' : undefined}>
          all
        </button>
        {crumbs.map((n) => (
          <span key={n}>
            {' › '}
            <button
              type="button"
              onClick={() => onFocus(n)}
              aria-current={n === focus ? 'true' : undefined}
              title={nameOf(n)}
            >
              {shortName(nameOf(n), 32)}
            </button>
          </span>
        ))}
      </nav>
      {focus > 0 && (
        <button type="button" className="reset" onClick={() => onFocus(0)} data-testid="reset-zoom">
          Reset
        </button>
      )}
      {props.children}
    </div>
  );
}
