import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { StateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { stateCountsReading } from '../../src/domain/admin-lists/state-counts-reading.js';
import { createLogger } from '../../src/logger.js';
import { registeredServer } from '../legacy/agent-requests.js';
import { useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, consolePage, signIn } from './console-support.js';

/** A fleet no test database holds, so that the overview can only have shown it from the reading. */
const READ: StateCounts = {
  servers: { active: 4242, stale: 17, dead: 3, revoked: 9 },
  installCodes: { issued: 808, activated: 1, consumed: 2, revoked: 0 },
  activationsAwaitingConfirm: 5,
  webhookDeliveriesPending: 0,
  oldestPendingWebhookAgeSeconds: 0,
};

/** The active servers' tile of the overview. */
function activeTile(html: string): string | undefined {
  return /data-health="active"><a [^>]*><span class="tile-value">(\d+)</.exec(html)?.[1];
}

describe("the console's overview counts the fleet from the periodic reading", () => {
  const t = useTestApp({ ADMIN_TOKEN });

  /** `t`'s database and clock, served by an app that is given `fleet`, as main.ts gives it the gauges' reading. */
  function withReading(fleet: ReturnType<typeof stateCountsReading>): TestApp {
    const { app } = createApp({
      db: t.database.db,
      clock: t.clock,
      config: t.config,
      logger: createLogger('silent'),
      keys: t.keys,
      counts: fleet,
    });
    return {
      ...t,
      request: async (path, init, address = '203.0.113.10') =>
        app.request(path, init, { incoming: { socket: { remoteAddress: address } } }),
    };
  }

  it('shows the reading once there is one, without counting', async () => {
    const fleet = stateCountsReading(async () => READ);
    await fleet.refresh();
    const served = withReading(fleet);
    const page = await consolePage(served, '/admin', await signIn(served, ADMIN_TOKEN));
    // The server tiles come from the reading; the usable codes are counted as the codes list counts them
    // (console-walk.test.ts), over the unexpired codes only.
    expect({ status: page.status, active: activeTile(page.html) }).toEqual({ status: 200, active: '4242' });
  });

  it('counts the fleet itself before the first reading', async () => {
    await registeredServer(t);
    const served = withReading(stateCountsReading(async () => READ));
    const page = await consolePage(served, '/admin', await signIn(served, ADMIN_TOKEN));
    expect(activeTile(page.html)).toBe('1');
  });
});
