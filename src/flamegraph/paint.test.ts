import { describe, expect, it } from 'vitest';
import { fitLabel } from './paint';

describe('bar labels', () => {
  it('a label cut to fit keeps its end (a line frame’s line) and as much of the function as fits', () => {
    expect(fitLabel('fx::hot_chain inline.cpp:15', 20)).toBe('…chain inline.cpp:15');
    expect(fitLabel('fx::hot_chain inline.cpp:15', 40)).toBe('fx::hot_chain inline.cpp:15');
  });
});
