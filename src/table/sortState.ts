// The function table's sort, a slice of its own: the table and the CSV export read it.

import { create } from 'zustand';

import type { SortKey } from '../core/model/table-order';

export type { SortKey };

export interface TableSort {
  key: SortKey;
  desc: boolean;
}

export const useTableSort = create<{
  sort: TableSort;
  sortBy: (key: SortKey) => void;
  setSort: (sort: TableSort) => void;
}>()((set, get) => ({
  sort: { key: 'self', desc: true },
  setSort: (sort) => set({ sort }),
  sortBy: (key) => {
    const s = get().sort;
    set({ sort: s.key === key ? { key, desc: !s.desc } : { key, desc: key !== 'name' && key !== 'module' } });
  },
}));
