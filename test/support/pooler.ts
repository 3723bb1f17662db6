import { describe } from 'vitest';

/**
 * `TEST_POOLER_URL`: a PgBouncer in transaction pooling mode (scripts/pgbouncer.sh start prints one)
 * whose databases are the PostgreSQL's. Tests of behaviour behind a pooler need it.
 */
const poolerUrl = process.env.TEST_POOLER_URL || undefined;

/**
 * `describe` when a pooler is configured. Without one: in CI (CI set) the file fails loudly;
 * elsewhere the block is skipped with a message saying how to start one.
 */
export function describeBehindPooler(name: string, body: (url: string) => void): void {
  if (poolerUrl) {
    describe(name, () => body(poolerUrl));
    return;
  }
  const message =
    'TEST_POOLER_URL is not set: these tests need a transaction-mode PgBouncer (export TEST_POOLER_URL="$(scripts/pgbouncer.sh start)")';
  if (process.env.CI) throw new Error(`${message}; CI must run them`);
  console.warn(`skipping "${name}": ${message}`);
  describe.skip(name, () => body(''));
}
