// The transforms applied, as removable chips.

import { describeTransform } from '../core/model/transforms';
import { useStore } from './store';
import { removeTransform } from './view';

export function TransformChips() {
  const transforms = useStore((s) => s.view.transforms);
  if (transforms.length === 0) return null;
  return (
    <ul className="chips" aria-label="Transforms">
      {transforms.map((t, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a chip is its position in the ordered list
        <li key={i} className="chip">
          <span>{describeTransform(t)}</span>
          <button
            type="button"
            aria-label={`Remove ${describeTransform(t)}`}
            onClick={() => void removeTransform(i)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
