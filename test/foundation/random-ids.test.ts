import { describe, expect, it } from 'vitest';
import { randomId } from '../../src/domain/tokens/secret-hash.js';

describe('random ids', () => {
  it('are the prefix and the hex of the bytes asked for, and never repeat across many draws from the pool', () => {
    // 3 000 ids of 8 bytes and 500 of 12 span several 4 KiB draws; an id that does not fit in what is left of one takes a fresh draw.
    const ids = [
      ...Array.from({ length: 3000 }, () => randomId('act_')),
      ...Array.from({ length: 500 }, () => randomId('pre_', 12)),
    ];
    expect(ids.slice(0, 3000).every((id) => /^act_[0-9a-f]{16}$/.test(id))).toBe(true);
    expect(ids.slice(3000).every((id) => /^pre_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(ids.length);
  });

  it('can be longer than the pool, and is never of no or part of a byte', () => {
    expect(randomId('x_', 5000)).toMatch(/^x_[0-9a-f]{10000}$/);
    for (const bytes of [0, -8, 1.5]) expect(() => randomId('x_', bytes)).toThrow(RangeError);
  });
});
