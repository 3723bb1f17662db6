import { describe, expect, it } from 'vitest';
import { activations } from '../../src/db/schema.js';
import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import { startReceiver } from '../webhooks/receiver.js';
import { addWebhook } from '../webhooks/webhook-requests.js';
import { testWorker } from '../webhooks/webhook-worker.js';
import { activateRequest, randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode, decide, enroll, fleetPrecheck, showCode } from './fleet-requests.js';

describe('fleet codes: the last use, approval per precheck, webhooks (DESIGN §22)', () => {
  const t = useTestApp({ ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('concurrent activates on the last use: exactly one wins, the others are 409 install_code_exhausted', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 3 });
    await enroll(t, code, { address: '198.51.100.1' });
    await enroll(t, code, { address: '198.51.100.2' });
    const ready = [];
    for (let i = 0; i < 8; i++) {
      const machine = randomMachine();
      const address = `198.51.100.${10 + i}`;
      const pre = await fleetPrecheck(t, code, machine, address);
      ready.push({ machine, address, token: (await pre.json()).data.precheck_token as string });
    }
    const answers = await Promise.all(
      ready.map(({ machine, address, token }) =>
        activateRequest(t, code, token, { ...machine, hostname: 'db.prod.example.com' }, address),
      ),
    );
    const statuses = await Promise.all(
      answers.map(async (r) => (r.status === 200 ? '200' : `${r.status} ${(await r.json()).error.code}`)),
    );
    expect(statuses.filter((s) => s === '200')).toHaveLength(1);
    expect(statuses.filter((s) => s !== '200')).toEqual(Array(7).fill('409 install_code_exhausted'));
    expect(await t.database.db.select().from(activations)).toHaveLength(3);
    expect(await showCode(t, id)).toMatchObject({ status: 'exhausted', uses_held: 3 });
  });

  it('approval per precheck: approve lets that machine take a use, deny refuses it with 403 approval_denied and the code stays usable', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 3, require_approval: true });
    const prechecked = [];
    for (const address of ['198.51.100.1', '198.51.100.2']) {
      const machine = randomMachine();
      const pre = await fleetPrecheck(t, code, machine, address);
      const { data } = await pre.json();
      expect(data.approval).toBe('pending');
      prechecked.push({
        machine,
        address,
        token: data.precheck_token as string,
        precheckId: data.precheck_id as string,
      });
    }
    const [a, b] = prechecked as [(typeof prechecked)[0], (typeof prechecked)[0]];
    const activate = (p: typeof a) =>
      activateRequest(t, code, p.token, { ...p.machine, hostname: 'db.prod.example.com' }, p.address);
    const waiting = await activate(a);
    expect(waiting.status).toBe(409);
    expect((await waiting.json()).error.code).toBe('approval_pending');
    const shown = await showCode(t, id);
    expect(shown.pending_prechecks.map((p: { precheck_id: string }) => p.precheck_id).sort()).toEqual(
      [a.precheckId, b.precheckId].sort(),
    );
    expect((await decide(t, id, a.precheckId, 'approve')).status).toBe(200);
    expect((await decide(t, id, b.precheckId, 'deny')).status).toBe(200);
    expect((await decide(t, id, b.precheckId, 'approve')).status).toBe(409);
    t.clock.advance(5);
    expect((await activate(a)).status).toBe(200);
    const denied = await activate(b);
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe('approval_denied');
    expect((await showCode(t, id)).status).toBe('issued');
  });

  it('tags reach a webhook delivery as data.tags', async () => {
    const r = await startReceiver();
    try {
      await addWebhook(t, r.url);
      const { install_code: code } = await createCode(t, { uses: 2, tags: { env: 'prod' } });
      const e = await enroll(t, code, { address: '198.51.100.1' });
      const reg = await registerRequest(t, {
        activation_id: e.activationId,
        install_token: e.installToken,
        agent_version: AGENT_VERSION,
      });
      expect(reg.status).toBe(201);
      await testWorker(t).worker.runOnce();
      const bodies = r.received.map((m) => JSON.parse(m.body));
      for (const type of ['install_code.issued', 'activation.created', 'server.registered'])
        expect(bodies.find((b) => b.type === type)?.data.tags).toEqual({ env: 'prod' });
    } finally {
      await r.close();
    }
  });
});
