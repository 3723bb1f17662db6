import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activations, events } from '../../src/db/schema.js';
import { countsByLimit } from '../rate-limits/rate-limit-support.js';
import {
  activateRequest,
  confirmRequest,
  expectError,
  expectRefusal,
  freshClient,
  issueCode,
  precheckToken,
  randomMachine,
  releaseRequest,
  type Machine,
} from '../support/install-flow.js';
import { createTestApp, openSecondInstance, type TestApp } from '../support/test-app.js';

interface Attempt {
  code: string;
  token: string;
  onMachine: Machine;
  address: string;
}

/** A code prechecked on a machine: what an installer holds when it sends activate. */
async function prechecked(t: TestApp): Promise<Attempt> {
  const code = await issueCode(t);
  const onMachine = randomMachine();
  return { code, token: await precheckToken(t, code, onMachine), onMachine, address: freshClient().address };
}

const activate = (t: TestApp, a: Attempt, overrides: Record<string, unknown> = {}) =>
  activateRequest(t, a.code, a.token, { ...a.onMachine, ...overrides }, a.address);

async function activated(res: Response): Promise<{ activationId: string; installToken: string; jti: string }> {
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return {
    activationId: data.activation_id,
    installToken: data.install_token,
    jti: decodeJwt(data.install_token).jti!,
  };
}

describe('activate is safe to retry after a lost answer', () => {
  let t: TestApp;
  /** A second instance: on PostgreSQL its own connection pool, as another server would have. */
  let other: TestApp;
  let closeOther: () => Promise<void>;
  beforeAll(async () => {
    t = await createTestApp({ INSTALL_TOKEN_TTL_SECONDS: '600' });
    ({ app: other, close: closeOther } = await openSecondInstance(t, { INSTALL_TOKEN_TTL_SECONDS: '600' }));
  });
  beforeEach(() => t.reset());
  afterAll(async () => {
    await closeOther?.();
    await t.close();
  });

  const activationRows = () => t.database.db.select().from(activations);

  it('the same request again answers the same activation, with an install token for the same jti', async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    t.clock.advance(30);
    const repeat = await activated(await activate(t, attempt));
    expect(repeat.activationId).toBe(first.activationId);
    expect(repeat.jti).toBe(first.jti);
    expect(await activationRows()).toHaveLength(1);
  });

  it("after a repeated activate, confirm works, and the first answer's token reads the same confirm back", async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    t.clock.advance(30);
    const repeat = await activated(await activate(t, attempt));
    const confirmed = await confirmRequest(t, repeat.activationId, repeat.installToken);
    expect(confirmed.status).toBe(200);
    // The first answer's token is the same token (same jti): its holder reads the same confirm back.
    const again = await confirmRequest(t, first.activationId, first.installToken);
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual((await confirmed.json()).data);
  });

  it('compares the body as the service normalises it: the code in lower case with spaces is the same request', async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    const repeat = await activated(
      await activate(t, attempt, { install_code: ` ${attempt.code.toLowerCase().replaceAll('-', ' ')} ` }),
    );
    expect(repeat.activationId).toBe(first.activationId);
  });

  it('a repeat on another instance, or many at the same time, never make a second activation', async () => {
    const attempt = await prechecked(t);
    const answers = await Promise.all(
      [t, other, t, other].map(async (instance) => activated(await activate(instance, attempt))),
    );
    expect(new Set(answers.map((a) => a.activationId)).size).toBe(1);
    expect(new Set(answers.map((a) => a.jti)).size).toBe(1);
    expect(await activationRows()).toHaveLength(1);
    // A repeat changes nothing, so it records no event.
    const created = await t.database.db.select().from(events).where(eq(events.type, 'activation.created'));
    expect(created.map((e) => e.activationId)).toEqual([answers[0]!.activationId]);
  });

  it('another body is 409 install_code_unavailable and changes nothing', async () => {
    const attempt = await prechecked(t);
    await activated(await activate(t, attempt));
    for (const change of [
      { hostname: 'vpn2.example.net' },
      { public_ip: '203.0.113.8' },
      { requested_ref: 'beta' },
      { installer_version: '2026.11.20.2' },
    ]) {
      await expectRefusal(t, () => activate(t, attempt, change), 409, 'install_code_unavailable');
    }
  });

  it('another precheck token for the same code and machine is 409 install_code_unavailable', async () => {
    const attempt = await prechecked(t);
    const secondToken = await precheckToken(t, attempt.code, attempt.onMachine);
    await activated(await activate(t, attempt));
    await expectRefusal(t, () => activate(t, { ...attempt, token: secondToken }), 409, 'install_code_unavailable');
  });

  it('after confirm the repeat is 409 install_code_unavailable', async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    expect((await confirmRequest(t, first.activationId, first.installToken)).status).toBe(200);
    await expectRefusal(t, () => activate(t, attempt), 409, 'install_code_unavailable');
  });

  it('after release the code is issued again and the same request makes a new activation, as without the retry rule', async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    expect((await releaseRequest(t, first.activationId, { installToken: first.installToken })).status).toBe(200);
    const again = await activated(await activate(t, attempt));
    expect(again.activationId).not.toBe(first.activationId);
    const statuses = Object.fromEntries((await activationRows()).map((r) => [r.id, r.status]));
    expect(statuses).toEqual({ [first.activationId]: 'released', [again.activationId]: 'activated' });
  });

  it('once the install token expired the repeat is 409 install_code_unavailable', async () => {
    const attempt = await prechecked(t);
    await activated(await activate(t, attempt));
    t.clock.advance(600);
    await expectRefusal(t, () => activate(t, attempt), 409, 'install_code_unavailable');
  });

  it('once the precheck token expired the repeat is 401 precheck_token_invalid', async () => {
    const attempt = await prechecked(t);
    const first = await activated(await activate(t, attempt));
    t.clock.advance(590);
    expect((await activated(await activate(t, attempt))).activationId).toBe(first.activationId);
    t.clock.advance(320);
    await expectError(await activate(t, attempt), 401, 'precheck_token_invalid');
  });

  it('a repeat counts against the activate limits like any request', async () => {
    const attempt = await prechecked(t);
    for (let i = 0; i < 5; i++) await activated(await activate(t, attempt));
    expect(await countsByLimit(t, 'activate')).toEqual({ 'activate-ip-day': 5, 'activate-machine-day': 5 });
    await expectError(await activate(t, attempt), 429, 'rate_limit_exceeded');
  });
});
