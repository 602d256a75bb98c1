// A row of tabs as the WAI-ARIA tabs pattern has them: one stop in the Tab order (the selected
// tab), ←/→ (and Home/End) move to the next tab and show it, as Firefox Profiler's and the
// browser's own tabs do. Used for the main views and the source panel's tabs.

import { useRef } from 'react';

export interface TabItem<T extends string> {
  id: T;
  label: string;
}

export function TabList<T extends string>({
  tabs,
  selected,
  onChoose,
  label,
  className,
}: {
  tabs: readonly TabItem<T>[];
  selected: T;
  onChoose: (id: T) => void;
  label: string;
  className?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: React.KeyboardEvent) => {
    const n = tabs.length;
    const i = Math.max(
      0,
      tabs.findIndex((t) => t.id === selected),
    );
    const next =
      e.key === 'ArrowRight'
        ? (i + 1) % n
        : e.key === 'ArrowLeft'
          ? (i - 1 + n) % n
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? n - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    onChoose(tabs[next].id);
    ref.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus();
  };
  return (
    <div
      ref={ref}
      className={className ? `tabs ${className}` : 'tabs'}
      role="tablist"
      aria-label={label}
      onKeyDown={onKeyDown}
    >
      {tabs.map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          aria-selected={t.id === selected}
          tabIndex={t.id === selected ? 0 : -1}
          onClick={() => onChoose(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
