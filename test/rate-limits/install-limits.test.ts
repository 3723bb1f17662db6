import { describe, expect, it } from 'vitest';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  issueCode,
  machine,
  otherMachine,
  precheckRequest,
  precheckToken,
  releaseRequest,
} from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import {
  bucketRows,
  countsByLimit,
  expectRateLimited,
  FORGED_TOKEN,
  parseRateLimit,
  UNKNOWN_CODE,
} from './rate-limit-support.js';

const machineNo = (n: number) => ({ machine_id: n.toString(16).padStart(32, '0') });

describe('precheck limits: 10/IP/day and 10/machine/day', () => {
  const t = useTestApp();

  it("a precheck of an unknown code still counts, against the sender's IP only, and carries the headers of what it was counted in", async () => {
    t.clock.set('2026-11-22T18:00:00Z');
    const res = await precheckRequest(t, UNKNOWN_CODE, {}, '203.0.113.10');
    expect({ status: res.status, code: (await res.json()).error.code }).toEqual({
      status: 404,
      code: 'install_code_not_found',
    });
    expect(res.headers.get('ratelimit-policy')).toBe('"precheck-ip-day";q=10;w=86400');
    expect(res.headers.get('ratelimit')).toBe('"precheck-ip-day";r=9;t=21600');
    expect(await countsByLimit(t)).toEqual({ 'precheck-ip-day': 1 });
  });

  it('precheck-ip-day: the eleventh precheck from one IP in a UTC day is 429 until exactly 00:00:00 UTC', async () => {
    t.clock.set('2026-11-22T18:00:00Z');
    for (let i = 1; i <= 10; i++)
      expect((await precheckRequest(t, UNKNOWN_CODE, machineNo(i), '203.0.113.10')).status).toBe(404);
    await expectRateLimited(
      await precheckRequest(t, UNKNOWN_CODE, machineNo(11), '203.0.113.10'),
      'precheck-ip-day',
      21_600,
      'Try again in 6 hours (after 00:00 UTC).',
    );
    expect((await precheckRequest(t, UNKNOWN_CODE, machineNo(11), '198.51.100.1')).status).toBe(404);
    t.clock.set('2026-11-22T23:59:59Z');
    await expectRateLimited(
      await precheckRequest(t, UNKNOWN_CODE, machineNo(12), '203.0.113.10'),
      'precheck-ip-day',
      1,
    );
    t.clock.set('2026-11-23T00:00:00Z');
    expect((await precheckRequest(t, UNKNOWN_CODE, machineNo(12), '203.0.113.10')).status).toBe(404);
  });

  it('precheck-machine-day: the eleventh precheck of a real code for one machine in a UTC day is 429 from any IP, until 00:00 UTC', async () => {
    t.clock.set('2026-11-22T06:30:00Z');
    const code = await issueCode(t);
    for (let i = 1; i <= 10; i++) expect((await precheckRequest(t, code, {}, `198.51.100.${i}`)).status).toBe(200);
    const before = await bucketRows(t, 'precheck');
    await expectRateLimited(
      await precheckRequest(t, code, {}, '198.51.100.11'),
      'precheck-machine-day',
      63_000,
      'Try again in 17 hours 30 minutes (after 00:00 UTC).',
    );
    // The refused request's IP was not counted either.
    expect(await bucketRows(t, 'precheck')).toEqual(before);
    t.clock.set('2026-11-23T00:00:00Z');
    // Admitted by the new day's bucket, and answered by the code (which has expired by now).
    expect((await precheckRequest(t, code, {}, '198.51.100.11')).status).toBe(410);
  });

  it('made-up codes sent for a machine, from any number of IPs, leave that machine its whole budget', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 12; i++)
      expect((await precheckRequest(t, UNKNOWN_CODE, machine, `198.51.100.${i}`)).status).toBe(404);
    // A code of another product (another prefix) cannot exist here: the same.
    expect((await precheckRequest(t, 'ABCD-SD-000000-000000-000000', machine, '198.51.100.13')).status).toBe(404);
    expect(await countsByLimit(t, 'precheck')).toEqual({ 'precheck-ip-day': 13 });

    const code = await issueCode(t);
    const res = await precheckRequest(t, code, machine, '198.51.100.14');
    expect(res.status).toBe(200);
    expect(parseRateLimit(res.headers.get('ratelimit'))).toEqual({
      'precheck-ip-day': { r: 9, t: 43_200 },
      'precheck-machine-day': { r: 9, t: 43_200 },
    });
  });

  it('a real code counts in both limits even when it then fails (410 expired, 410 revoked, 409 in use)', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    const expired = await issueCode(t);
    const used = await activatedInstall(t, machine);
    t.clock.advance(3600);
    const answers = [
      await precheckRequest(t, expired, machine, '198.51.100.1'),
      await precheckRequest(t, used.code, machine, '198.51.100.2'),
    ];
    expect(answers.map((r) => r.status)).toEqual([410, 409]);
    expect(answers.map((r) => parseRateLimit(r.headers.get('ratelimit'))['precheck-machine-day']?.r)).toEqual([8, 7]);
  });

  it('a precheck refused by the IP limit counts nothing, whether its code is real or not', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 10; i++)
      expect((await precheckRequest(t, UNKNOWN_CODE, machineNo(i), '203.0.113.10')).status).toBe(404);
    const code = await issueCode(t);
    const before = await bucketRows(t, 'precheck');
    await expectRateLimited(await precheckRequest(t, code, machine, '203.0.113.10'), 'precheck-ip-day', 43_200);
    await expectRateLimited(await precheckRequest(t, UNKNOWN_CODE, machine, '203.0.113.10'), 'precheck-ip-day', 43_200);
    expect(await bucketRows(t, 'precheck')).toEqual(before);
  });

  it('a body that fails validation (400) or an outdated installer (426) counts nothing', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    expect((await precheckRequest(t, UNKNOWN_CODE, { machine_id: 'not-hex' })).status).toBe(400);
    const strict = buildTestApp(t.database, t.keys, { MIN_INSTALLER_VERSION: '2027.1.1.1' }, t.clock);
    expect((await precheckRequest(strict, UNKNOWN_CODE)).status).toBe(426);
    expect((await activateRequest(strict, UNKNOWN_CODE, FORGED_TOKEN)).status).toBe(426);
    expect(await bucketRows(t)).toEqual([]);
  });
});

describe('activate limits: 5/IP/day, and 5/machine/day for valid tokens; confirm and release are not limited', () => {
  const t = useTestApp();

  /** An issued code and a valid precheck token for `onMachine` (issued and prechecked from other addresses). */
  async function validToken(onMachine: Record<string, string> = machine): Promise<{ code: string; token: string }> {
    const code = await issueCode(t);
    return { code, token: await precheckToken(t, code, onMachine) };
  }

  it('activate-ip-day: the sixth activate from one IP in a UTC day is 429 (a bad token counts too, per IP only), until 00:00 UTC', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 5; i++) {
      const res = await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machineNo(i), '203.0.113.10');
      expect({ status: res.status, code: (await res.json()).error.code }).toEqual({
        status: 401,
        code: 'precheck_token_invalid',
      });
      expect(res.headers.get('ratelimit-policy')).toBe('"activate-ip-day";q=5;w=86400');
      expect(parseRateLimit(res.headers.get('ratelimit'))).toEqual({ 'activate-ip-day': { r: 5 - i, t: 43_200 } });
    }
    await expectRateLimited(
      await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machineNo(6), '203.0.113.10'),
      'activate-ip-day',
      43_200,
      'Try again in 12 hours (after 00:00 UTC).',
    );
    expect(await countsByLimit(t)).toEqual({ 'activate-ip-day': 5 });
    t.clock.set('2026-11-22T23:59:59Z');
    await expectRateLimited(
      await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machineNo(6), '203.0.113.10'),
      'activate-ip-day',
      1,
    );
    t.clock.set('2026-11-23T00:00:00Z');
    expect((await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machineNo(6), '203.0.113.10')).status).toBe(401);
  });

  it('garbage tokens sent for a machine, from any number of IPs, leave that machine its whole budget', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 12; i++)
      expect((await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machine, `198.51.100.${i}`)).status).toBe(401);
    // A real token made for another machine, presented with this machine's identity: 403, and per IP only too.
    const foreign = await validToken(otherMachine);
    const mismatch = await activateRequest(t, foreign.code, foreign.token, machine, '198.51.100.13');
    expect({ status: mismatch.status, code: (await mismatch.json()).error.code }).toEqual({
      status: 403,
      code: 'machine_mismatch',
    });
    expect(await countsByLimit(t, 'activate')).toEqual({ 'activate-ip-day': 13 });

    const { code, token } = await validToken();
    const res = await activateRequest(t, code, token, machine, '198.51.100.14');
    expect(res.status).toBe(200);
    expect(parseRateLimit(res.headers.get('ratelimit'))).toEqual({
      'activate-ip-day': { r: 4, t: 43_200 },
      'activate-machine-day': { r: 4, t: 43_200 },
    });
  });

  it('activate-machine-day: the sixth activate with a valid token for one machine in a UTC day is 429 from any IP, until 00:00 UTC', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 5; i++) {
      const { code, token } = await validToken();
      expect((await activateRequest(t, code, token, machine, `198.51.100.${i}`)).status).toBe(200);
    }
    expect(await countsByLimit(t, 'activate')).toEqual({ 'activate-ip-day': 5, 'activate-machine-day': 5 });
    const sixth = await validToken();
    const before = await bucketRows(t);
    await expectRateLimited(
      await activateRequest(t, sixth.code, sixth.token, machine, '198.51.100.6'),
      'activate-machine-day',
      43_200,
    );
    expect(await bucketRows(t)).toEqual(before);
    // The machine's limit is not even consulted for a bad token: it is refused as bad, not as limited.
    expect((await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machine, '198.51.100.6')).status).toBe(401);
    t.clock.set('2026-11-23T00:00:00Z');
    const next = await validToken();
    expect((await activateRequest(t, next.code, next.token, machine, '198.51.100.6')).status).toBe(200);
  });

  it('a valid token counts in both limits even when the code then fails (409)', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    const { code, token } = await validToken();
    expect((await activateRequest(t, code, token, machine, '198.51.100.1')).status).toBe(200);
    // Another hostname: not a repeat of the first request, which would be answered 200 (activate-retry.test.ts).
    const again = await activateRequest(t, code, token, { ...machine, hostname: 'vpn2.example.net' }, '198.51.100.2');
    expect({ status: again.status, code: (await again.json()).error.code }).toEqual({
      status: 409,
      code: 'install_code_unavailable',
    });
    expect(parseRateLimit(again.headers.get('ratelimit'))).toEqual({
      'activate-ip-day': { r: 4, t: 43_200 },
      'activate-machine-day': { r: 3, t: 43_200 },
    });
  });

  it('a request refused by the IP limit counts nothing, whether its token is valid or not', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 1; i <= 5; i++)
      expect((await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machineNo(i), '203.0.113.10')).status).toBe(401);
    const { code, token } = await validToken();
    const before = await bucketRows(t);
    await expectRateLimited(await activateRequest(t, code, token, machine, '203.0.113.10'), 'activate-ip-day', 43_200);
    await expectRateLimited(
      await activateRequest(t, UNKNOWN_CODE, FORGED_TOKEN, machine, '203.0.113.10'),
      'activate-ip-day',
      43_200,
    );
    expect(await bucketRows(t)).toEqual(before);
  });

  it('confirm and release are never limited and carry no RateLimit headers', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    for (let i = 0; i < 12; i++) {
      const confirm = await confirmRequest(t, 'act_0000000000000000', FORGED_TOKEN);
      const release = await releaseRequest(t, 'act_0000000000000000');
      expect([confirm.status, release.status]).not.toContain(429);
      expect([confirm.headers.get('ratelimit'), release.headers.get('ratelimit')]).toEqual([null, null]);
    }
    expect(await bucketRows(t)).toEqual([]);
  });
});
