import { describe, expect, it } from 'vitest';
import { toIsoOffset } from '../../src/clock.js';

/** What toIsoOffset wrote before its days were kept: toISOString's first 19 characters and `+00:00`. */
const asBefore = (date: Date) => `${date.toISOString().slice(0, 19)}+00:00`;

describe('toIsoOffset', () => {
  it('writes each instant as toISOString does, in whole seconds with +00:00, whatever the year', () => {
    const instants = [
      0,
      -1,
      1,
      999,
      1000,
      -86_400_000,
      -86_400_001,
      86_399_999,
      Date.UTC(2026, 10, 22, 10, 0, 0, 999),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      -62_167_219_200_000,
      -62_167_219_200_001,
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -8.64e15,
    ];
    // Instants spread over every year 0000–9999 and a dense run of seconds around now (a fixed sequence).
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647);
    for (let i = 0; i < 20_000; i++)
      instants.push(-62_167_219_200_000 + (next() / 2_147_483_647) * 315_569_520_000_000);
    for (let i = 0; i < 20_000; i++) instants.push(Date.UTC(2026, 10, 1) + next() * 3);
    const differing = instants
      .map((ms) => new Date(Math.floor(ms)))
      .filter((date) => toIsoOffset(date) !== asBefore(date))
      .map((date) => [date.getTime(), toIsoOffset(date), asBefore(date)]);
    expect(differing).toEqual([]);
    expect(toIsoOffset(new Date(Date.UTC(2026, 10, 22, 10, 0, 30, 500)))).toBe('2026-11-22T10:00:30+00:00');
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => toIsoOffset(new Date(Number.NaN))).toThrow(RangeError);
  });
});
