// A tooltip near the pointer over the timeline or the flame chart: a title, lines of facts, and a
// stack (leaf first, cut after a few frames).

import { useLayoutEffect, useRef, useState } from 'react';

const STACK_LINES = 14;

export interface TimeTipProps {
  x: number;
  y: number;
  title: string;
  lines: string[];
  /** Frames, root first; shown leaf first. */
  stack?: string[];
  testId?: string;
}

export function TimeTip({ x, y, title, lines, stack, testId }: TimeTipProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState({ w: 320, h: 120 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && (el.offsetWidth !== box.w || el.offsetHeight !== box.h))
      setBox({ w: el.offsetWidth, h: el.offsetHeight });
  });
  const left = x + 14 + box.w > window.innerWidth ? Math.max(0, x - 14 - box.w) : x + 14;
  const top = y + 16 + box.h > window.innerHeight ? Math.max(0, y - 12 - box.h) : y + 16;
  const leafFirst = stack ? [...stack].reverse() : [];
  return (
    <div ref={ref} className="tooltip time-tip" role="tooltip" style={{ left, top }} data-testid={testId}>
      <div className="tt-name">{title}</div>
      {lines.map((l) => (
        <div key={l} className="tt-note">
          {l}
        </div>
      ))}
      {stack && (
        <ol className="tt-stack" data-testid={testId && `${testId}-stack`}>
          {leafFirst.slice(0, STACK_LINES).map((f, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a stack's frames repeat (recursion); their place is their identity
            <li key={i}>{f}</li>
          ))}
          {leafFirst.length > STACK_LINES && (
            <li className="tt-more">… {leafFirst.length - STACK_LINES} more</li>
          )}
          {leafFirst.length === 0 && <li className="tt-more">(no frames in this view)</li>}
        </ol>
      )}
    </div>
  );
}
