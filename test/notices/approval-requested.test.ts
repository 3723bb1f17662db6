import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createCode, fleetPrecheck } from '../fleet-codes/fleet-requests.js';
import { issueWithApproval, precheckWaiting } from '../support/approval-flow.js';
import { issue, newBrowser, randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { noticeEvents } from './notice-requests.js';

describe('notices: a machine waits for approval (DESIGN §28)', () => {
  const t = useTestApp({ ADMIN_TOKEN, APPROVAL_POLICY: 'optional' });

  it('a precheck that starts to wait writes install_code.approval_requested in its own statement, saying the person decides', async () => {
    const browser = await newBrowser(t);
    const code = await issueWithApproval(t, browser);
    const machine = randomMachine();
    const waiting = await precheckWaiting(t, code.code, machine);
    const events = await noticeEvents(t, ['install_code.approval_requested']);
    expect(events).toEqual([
      {
        type: 'install_code.approval_requested',
        server_id: null,
        install_code_id: code.id,
        actor: 'installer',
        data: {
          precheck_id: waiting.precheckId,
          decided_by: 'person',
          machine_id: machine.machine_id,
          hint: code.hint,
        },
      },
    ]);
    // Written with the precheck it announces: the same instant, the same request.
    const [row] = await queryRows<{ same: boolean }>(
      t.database.db,
      sql`select e.occurred_at = p.prechecked_at and e.request_id is not null as same from events e join install_code_prechecks p on p.id = e.data->>'precheck_id' where e.type = 'install_code.approval_requested'`,
    );
    expect(row!.same).toBe(true);
  });

  it("a fleet code's waiting precheck says an operator decides, with the code's description and tags", async () => {
    const code = await createCode(t, {
      uses: 3,
      require_approval: true,
      description: 'db fleet <!channel>',
      tags: { team: '@everyone' },
    });
    const res = await fleetPrecheck(t, code.install_code, randomMachine(), '203.0.113.9');
    expect(res.status).toBe(200);
    expect((await res.json()).data.approval).toBe('pending');
    const [event] = await noticeEvents(t, ['install_code.approval_requested']);
    expect(event!.data).toMatchObject({
      decided_by: 'operator',
      description: 'db fleet <!channel>',
      tags: { team: '@everyone' },
    });
  });

  it('a precheck of a code without approval writes no approval_requested', async () => {
    const browser = await newBrowser(t);
    const code = await issue(t, browser);
    const res = await fleetPrecheck(t, code.code, randomMachine(), browser.address);
    expect(res.status).toBe(200);
    expect(await noticeEvents(t, ['install_code.approval_requested'])).toEqual([]);
  });
});
