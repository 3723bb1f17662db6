// What the rate-limit overrides cost: the read an instance makes of them (at most every 4 s while it
// serves requests, never per request), and the quota lookup every limited request makes in memory,
// with no override, 100 and 1 000 of them in place (a third addresses, a third networks, a third machines).
import { rateLimitOverrides } from '../../src/db/schema.js';
import { UNKEYED_HASHES } from '../../src/domain/tokens/keyed-hashes.js';
import { checksFor } from '../../src/domain/rate-limits/limiter.js';
import { loadActiveOverrides } from '../../src/domain/rate-limits/override-changes.js';
import { OverrideTable } from '../../src/domain/rate-limits/overrides.js';
import type { CountingDatabase } from './counting-database.js';
import { measure, type Measurement } from './measure.js';

const NOW = new Date('2026-11-22T10:30:00Z');
const EXPIRES = new Date('2026-12-22T10:30:00Z');

function overrideRows(count: number, from: number) {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const kind = i % 3;
    const common = {
      id: `rlo_${i.toString(16).padStart(16, '0')}`,
      quota: 50,
      expiresAt: EXPIRES,
      reason: 'bench',
      createdAt: NOW,
      createdBy: 'root',
    };
    if (kind === 0)
      return {
        ...common,
        subject: 'ip' as const,
        value: `198.18.${(i >> 8) & 255}.${i & 255}`,
        subjectKey: `198.18.${(i >> 8) & 255}.${i & 255}`,
        limitName: 'issue-ip-hour',
      };
    if (kind === 1)
      return {
        ...common,
        subject: 'cidr' as const,
        value: `100.${64 + ((i >> 8) & 63)}.${i & 255}.0/24`,
        subjectKey: `100.${64 + ((i >> 8) & 63)}.${i & 255}.0/24`,
        limitName: 'issue-ip-hour',
      };
    const machine = i.toString(16).padStart(32, '0');
    return {
      ...common,
      subject: 'machine' as const,
      value: machine,
      subjectKey: machine,
      limitName: 'precheck-machine-day',
    };
  });
}

export async function benchRateLimitOverrides(database: CountingDatabase, runs: number): Promise<Measurement[]> {
  const { db } = database;
  const results: Measurement[] = [];
  let inPlace = 0;
  for (const target of [0, 100, 1000]) {
    if (target > inPlace) await db.insert(rateLimitOverrides).values(overrideRows(target - inPlace, inPlace));
    inPlace = target;
    results.push(
      await measure(
        database,
        `read of ${target} overrides in place (and the table built)`,
        runs,
        async () => void new OverrideTable(await loadActiveOverrides(db, NOW)),
      ),
    );
    const quotas = new OverrideTable(await loadActiveOverrides(db, NOW)).at(NOW);
    // An address no override holds: every network of the limit is tried (the worst case).
    results.push(
      await measure(database, `quotas of one issue (4 limits), ${target} overrides in memory`, runs, async (i) => {
        checksFor(
          'issue',
          { ip: `203.0.${(i >> 8) & 255}.${i & 255}`, session: 'session', fingerprint: 'fingerprint' },
          { quotas, hashes: UNKEYED_HASHES },
        );
      }),
    );
  }
  return results;
}
