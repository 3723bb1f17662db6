import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, events, installCodes } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import {
  activateRequest,
  activatedInstall,
  confirmRequest,
  freshClient,
  issueCode,
  precheckToken,
  randomMachine,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const statusesOf = async (responses: Response[]) =>
  Promise.all(responses.map(async (r) => `${r.status} ${r.status === 200 ? 'ok' : (await r.json()).error.code}`));

describe('races on the real database', () => {
  const t = useTestApp();

  it('20 concurrent activations of one code for different hostnames: exactly one succeeds, one activation exists', async () => {
    const code = await issueCode(t);
    const onMachine = randomMachine();
    const token = await precheckToken(t, code, onMachine);
    // Different bodies: identical ones would be repeats, answered with the one activation (activate-retry.test.ts).
    const results = await statusesOf(
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          activateRequest(t, code, token, { ...onMachine, hostname: `vpn${i}.example.net` }, freshClient().address),
        ),
      ),
    );
    expect(results.filter((r) => r === '200 ok')).toHaveLength(1);
    // The losers are refused because the code is taken (or, past 5, by the per-machine daily limit).
    for (const r of results.filter((r) => r !== '200 ok'))
      expect(r).toMatch(/^(409 install_code_unavailable|429 rate_limit_exceeded)$/);
    expect(results).toContain('409 install_code_unavailable');
    const [codeRow] = await t.database.db
      .select()
      .from(installCodes)
      .where(eq(installCodes.codeHash, sha256Hex(code)));
    expect(codeRow?.status).toBe('activated');
    expect(
      await t.database.db.select().from(activations).where(eq(activations.installCodeId, codeRow!.id)),
    ).toHaveLength(1);
  });

  it('10 concurrent confirms of one install token: one confirms, the rest read it back (200, the same receipt), one event', async () => {
    const { activationId, installToken } = await activatedInstall(t);
    const answers = await Promise.all(Array.from({ length: 10 }, () => confirmRequest(t, activationId, installToken)));
    const bodies = await Promise.all(answers.map(async (r) => [r.status, (await r.json()).data?.receipt]));
    expect(new Set(bodies.map(([status]) => status))).toEqual(new Set([200]));
    expect(new Set(bodies.map(([, receipt]) => receipt)).size).toBe(1);
    const confirmedEvents = await t.database.db
      .select()
      .from(events)
      .where(and(eq(events.activationId, activationId), eq(events.type, 'activation.confirmed')));
    expect(confirmedEvents).toHaveLength(1);
  });

  it('confirm racing release: exactly one wins and the code and activation agree', async () => {
    for (let round = 0; round < 5; round++) {
      const { code, activationId, installToken } = await activatedInstall(t);
      const [confirmed, released] = await Promise.all([
        confirmRequest(t, activationId, installToken),
        releaseRequest(t, activationId, { installToken }),
      ]);
      const outcome = await statusesOf([confirmed, released]);
      const [activation] = await t.database.db.select().from(activations).where(eq(activations.id, activationId));
      const [codeRow] = await t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)));
      if (outcome[0] === '200 ok') {
        expect(outcome[1]).toBe('409 activation_confirmed');
        expect([activation?.status, codeRow?.status]).toEqual(['confirmed', 'consumed']);
      } else {
        expect(outcome).toEqual(['409 activation_released', '200 ok']);
        expect([activation?.status, codeRow?.status]).toEqual(['released', 'issued']);
      }
    }
  });
});
