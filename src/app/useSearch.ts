// The search as the views use it: the worker's answer for the view's query over the shown
// analysis (matched frames, samples through them, places to visit), asked for shortly after the
// query or the analysis changes. Nothing is matched or walked on the main thread.

import { useEffect } from 'react';
import { useStore } from './store';
import { runSearch } from './view';

export interface SearchState {
  error: string | null;
  /** 1 per frame id whose name matches; null while the worker is matching. */
  match: Uint8Array | null;
  /** Samples through a match, each once; null while the worker is matching. */
  samples: number | null;
  /** Matching nodes with no matching ancestor, as frame-id paths, heaviest first. */
  tops: Uint32Array[];
}

const DEBOUNCE_MS = 80;

export function useSearch(): SearchState | null {
  const query = useStore((s) => s.view.search);
  const analysis = useStore((s) => s.analysis);
  const result = useStore((s) => s.searchResult);
  useEffect(() => {
    if (!analysis) return;
    const timer = setTimeout(() => void runSearch(), query.text ? DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [query, analysis]);
  if (!query.text) return null;
  if (!result || result.query !== query || result.analysis !== analysis)
    return { error: null, match: null, samples: null, tops: [] };
  const { reply } = result;
  if (reply.error) return { error: reply.error, match: null, samples: 0, tops: [] };
  return { error: null, match: reply.match, samples: reply.samples, tops: reply.tops };
}
