import { describe, expect, it } from 'vitest';
import { loadKeyRing, retireSigningKey, rotateSigningKey } from '../../src/domain/tokens/signing-key-store.js';
import { SignedTokenMemo } from '../../src/domain/tokens/signed-token-memo.js';
import {
  createKeyRing,
  generatePrivateJwk,
  importSigningKey,
  keyRingFromJwks,
  type KeySet,
} from '../../src/domain/tokens/signing-keys.js';
import { signPrecheckToken, verifyPrecheckToken } from '../../src/domain/tokens/install-step-tokens.js';
import { ApiError } from '../../src/errors.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  expectError,
  issueCode,
  precheckToken,
} from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';

const at = (iso: string) => new Date(iso);

describe('the memo of tokens this process signed', () => {
  it('knows exactly the tokens it was told of, until each expires', () => {
    const memo = new SignedTokenMemo();
    memo.remember('a.b.c', at('2026-11-22T10:15:00Z'), at('2026-11-22T10:00:00Z'));
    expect(memo.signedHere('a.b.c', at('2026-11-22T10:14:59Z'))).toBe(true);
    expect(memo.signedHere('a.b.C', at('2026-11-22T10:14:59Z'))).toBe(false);
    expect(memo.signedHere('a.b.c', at('2026-11-22T10:15:00Z'))).toBe(false);
  });

  it('holds at most its capacity, forgetting the oldest first, and drops what has expired', () => {
    const memo = new SignedTokenMemo(3);
    const now = at('2026-11-22T10:00:00Z');
    const later = at('2026-11-22T11:00:00Z');
    for (const token of ['t1', 't2', 't3', 't4']) memo.remember(token, later, now);
    expect(memo.size).toBe(3);
    expect(['t1', 't2', 't3', 't4'].map((t) => memo.signedHere(t, now))).toEqual([false, true, true, true]);
    // Once they have expired, the next token signed clears them out.
    memo.remember('t5', at('2026-11-22T13:00:00Z'), at('2026-11-22T12:00:00Z'));
    expect(memo.size).toBe(1);
  });

  it('keeps forgetting the oldest in order, round after round of its capacity, and starts afresh once cleared', () => {
    const memo = new SignedTokenMemo(3);
    const now = at('2026-11-22T10:00:00Z');
    const later = at('2026-11-22T11:00:00Z');
    const tokens = Array.from({ length: 11 }, (_, i) => `t${i}`);
    for (const token of tokens) memo.remember(token, later, now);
    expect(memo.size).toBe(3);
    expect(tokens.filter((t) => memo.signedHere(t, now))).toEqual(['t8', 't9', 't10']);
    // A token remembered twice (an install token signed again within the same second) takes two places, and is forgotten with the older.
    memo.remember('t10', later, now);
    memo.remember('t11', later, now);
    expect(tokens.concat('t11').filter((t) => memo.signedHere(t, now))).toEqual(['t10', 't11']);
    memo.remember('t12', later, now);
    expect(['t10', 't11', 't12'].map((t) => memo.signedHere(t, now))).toEqual([false, true, true]);
    memo.clear();
    expect(memo.size).toBe(0);
    expect(() => new SignedTokenMemo(0)).toThrow(RangeError);
    for (const token of ['u1', 'u2', 'u3', 'u4']) memo.remember(token, later, now);
    expect(['t10', 'u1', 'u2', 'u3', 'u4'].map((t) => memo.signedHere(t, now))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('a token this process signed still meets every check but its signature', () => {
  const t = useTestApp();

  it('only the ring that signed a token remembers it: another instance with the same keys verifies it in full', async () => {
    const jwk = await generatePrivateJwk();
    const ringA = await keyRingFromJwks([jwk]);
    const ringB = await keyRingFromJwks([jwk]);
    const a = buildTestApp(t.database, ringA, {}, t.clock);
    const b = buildTestApp(t.database, ringB, {}, t.clock);
    const code = await issueCode(a);
    const token = await precheckToken(a, code);
    expect(ringA.signed.signedHere(token, t.clock.now())).toBe(true);
    expect(ringB.signed.signedHere(token, t.clock.now())).toBe(false);
    const activated = await activateRequest(b, code, token);
    expect(activated.status).toBe(200);
    const { activation_id, install_token } = (await activated.json()).data;
    expect((await confirmRequest(a, activation_id, install_token)).status).toBe(200);
  });

  it('a remembered token whose key was retired is refused', async () => {
    const kek = Buffer.alloc(32, 7);
    const options = { verifyWindowSeconds: 3665, clock: t.clock, kek };
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options);
    const app = buildTestApp(t.database, ring, {}, t.clock);
    const oldKid = ring.signing.kid;
    const install = await activatedInstall(app);
    await rotateSigningKey(t.database.db, t.clock.now(), options);
    await retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: 3665, force: true });
    await ring.refresh();
    expect(ring.signed.signedHere(install.installToken, t.clock.now())).toBe(true);
    await expectError(
      await confirmRequest(app, install.activationId, install.installToken),
      401,
      'install_token_invalid',
    );
  });

  it('a remembered precheck token is still refused as an install token (its typ and audience are checked)', async () => {
    const install = await activatedInstall(t);
    const code = await issueCode(t);
    const precheck = await precheckToken(t, code);
    expect(t.keys.signed.signedHere(precheck, t.clock.now())).toBe(true);
    await expectError(await confirmRequest(t, install.activationId, precheck), 401, 'install_token_invalid');
  });

  it('a ring reloaded with other key material under the same kid forgets what it signed', async () => {
    const keySet = async (): Promise<KeySet> => {
      const key = importSigningKey({ ...(await generatePrivateJwk()), kid: 'key_same' });
      return { signing: { kid: key.kid, key: key.privateKey }, verifying: [key] };
    };
    const before = await keySet();
    const after = await keySet();
    let served = before;
    const ring = createKeyRing(before, async () => served);
    const now = t.clock.now();
    const claims = { codeHash: 'a'.repeat(64), machineId: 'b'.repeat(32), sshFingerprint: 'SHA256:c' };
    const token = await signPrecheckToken(ring, claims, now, new Date(now.getTime() + 600_000));
    await ring.refresh();
    expect((await verifyPrecheckToken(ring, token, now)).codeHash).toBe(claims.codeHash);
    served = after;
    await ring.refresh();
    expect(ring.signed.signedHere(token, now)).toBe(false);
    await expect(verifyPrecheckToken(ring, token, now)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === 'precheck_token_invalid',
    );
  });
});
