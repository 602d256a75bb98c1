// What a failed storage request is said to mean.

import { describe, expect, it } from 'vitest';
import { storageProblem } from './idb';

describe('storageProblem', () => {
  it('says full, not allowed, or the error', () => {
    expect(storageProblem(new DOMException('quota', 'QuotaExceededError'))).toBe(
      "this browser's storage for this page is full",
    );
    expect(storageProblem(new DOMException('denied', 'SecurityError'))).toMatch(
      /keeps no data for this page/,
    );
    expect(storageProblem(new Error('no IndexedDB'))).toMatch(/private window/);
    expect(storageProblem(new DOMException('version', 'VersionError'))).toBe(
      "this browser's storage refused it (version)",
    );
  });
});
