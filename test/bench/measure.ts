// One benchmark case: microseconds and SQL statements per call, after a warm-up.
import type { CountingDatabase } from './counting-database.js';

export interface Measurement {
  case: string;
  runs: number;
  statementsPerRun: number;
  medianUs: number;
  p95Us: number;
  meanUs: number;
}

/**
 * The lowest and highest of ratios taken slice by slice (or run by run), as ` (0.91–1.08)` after the ratio they
 * spread around: how far the machine's noise moved it. Nothing for fewer than two.
 */
export function ratioSpread(ratios: number[]): string {
  return ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '';
}

export async function measure(
  database: CountingDatabase,
  name: string,
  runs: number,
  run: (i: number) => Promise<void>,
  warmup = 100,
): Promise<Measurement> {
  for (let i = 0; i < warmup; i++) await run(runs + i);
  const durations: number[] = [];
  const before = database.statements();
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run(i);
    durations.push((performance.now() - started) * 1000);
  }
  const statements = database.statements() - before;
  durations.sort((a, b) => a - b);
  const at = (q: number) => Math.round(durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!);
  return {
    case: name,
    runs,
    statementsPerRun: Math.round((statements / runs) * 100) / 100,
    medianUs: at(0.5),
    p95Us: at(0.95),
    meanUs: Math.round(durations.reduce((a, b) => a + b, 0) / durations.length),
  };
}
