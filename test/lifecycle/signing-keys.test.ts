import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-error.js';
import { signingKeys } from '../../src/db/schema.js';
import { loadKeyRing } from '../../src/domain/tokens/signing-key-store.js';
import { generatePrivateJwk } from '../../src/domain/tokens/signing-keys.js';
import { activateRequest, confirmRequest, issueCode, precheckToken } from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';

describe('signing keys', () => {
  const t = useTestApp();

  it('signing and verifying a token in a fresh process uses nothing deprecated (Node 24: DEP0204)', async () => {
    // A fresh process: Node warns of each deprecation once, and --throw-deprecation turns that warning into a failure.
    const script = `
      import { generatePrivateJwk, keyRingFromJwks } from './src/domain/tokens/signing-keys.ts';
      import { signPrecheckToken, verifyPrecheckToken } from './src/domain/tokens/install-step-tokens.ts';
      const ring = await keyRingFromJwks([await generatePrivateJwk()]);
      const now = new Date();
      const claims = { codeHash: 'a'.repeat(64), machineId: 'b'.repeat(32), sshFingerprint: 'SHA256:x' };
      const verified = await verifyPrecheckToken(ring, await signPrecheckToken(ring, claims, now, new Date(now.getTime() + 60_000)), now);
      process.stdout.write(verified.machineId);`;
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--throw-deprecation', '--import', 'tsx', '--input-type=module', '-e', script],
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      ),
    );
    expect(run).toEqual({ code: 0, stdout: 'b'.repeat(32), stderr: '' });
  });

  it('without SIGNING_KEYS, the first start makes one Ed25519 key in the database and later starts reuse it', async () => {
    const first = await loadKeyRing(t.database.db, undefined, t.clock.now());
    const second = await loadKeyRing(t.database.db, undefined, t.clock.now());
    expect(second.signing.kid).toBe(first.signing.kid);
    expect(await t.database.db.select().from(signingKeys)).toHaveLength(1);
    expect(first.publicJwks(t.clock.now()).keys[0]).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(first.publicJwks(t.clock.now()).keys[0]).not.toHaveProperty('d');
  });

  it('instances starting together agree on one key', async () => {
    const rings = await Promise.all(
      Array.from({ length: 4 }, () => loadKeyRing(t.database.db, undefined, t.clock.now())),
    );
    expect(new Set(rings.map((r) => r.signing.kid)).size).toBe(1);
    expect(await t.database.db.select().from(signingKeys)).toHaveLength(1);
  });

  it('a token signed by one instance is accepted by another on the same database', async () => {
    const ringA = await loadKeyRing(t.database.db, undefined, t.clock.now());
    const ringB = await loadKeyRing(t.database.db, undefined, t.clock.now());
    const a = buildTestApp(t.database, ringA, {}, t.clock);
    const b = buildTestApp(t.database, ringB, {}, t.clock);
    const code = await issueCode(a);
    const res = await activateRequest(b, code, await precheckToken(a, code));
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect((await confirmRequest(a, data.activation_id, data.install_token)).status).toBe(200);
  });

  it('SIGNING_KEYS: the first key signs, every key verifies and is published', async () => {
    const [newKey, oldKey] = [await generatePrivateJwk(), await generatePrivateJwk()];
    const ring = await loadKeyRing(t.database.db, JSON.stringify({ keys: [newKey, oldKey] }), t.clock.now());
    expect(ring.signing.kid).toBe(newKey.kid);
    expect(ring.publicJwks(t.clock.now()).keys.map((k) => k.kid)).toEqual([newKey.kid, oldKey.kid]);
    const app = buildTestApp(t.database, ring, {}, t.clock);
    const res = await app.request('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    const jwks = await res.json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([newKey.kid, oldKey.kid]);
    expect(JSON.stringify(jwks)).not.toContain(newKey.d);
    expect(await t.database.db.select().from(signingKeys)).toHaveLength(0);
  });

  it.each([
    ['not JSON', '{keys'],
    ['no keys', '{"keys":[]}'],
    ['a public key only', JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k' }] })],
    ['an RSA key', JSON.stringify({ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y', kid: 'k' }] })],
  ])('a bad SIGNING_KEYS (%s) stops the start with one line naming it', async (_, value) => {
    await expect(loadKeyRing(t.database.db, value, t.clock.now())).rejects.toThrow(ConfigError);
    await expect(loadKeyRing(t.database.db, value, t.clock.now())).rejects.toThrow(/^invalid SIGNING_KEYS: /);
  });

  it('a SIGNING_KEYS key whose x is not the public half of its d stops the start (its tokens would never verify)', async () => {
    const [key, other] = [await generatePrivateJwk(), await generatePrivateJwk()];
    const value = JSON.stringify({ keys: [{ ...key, x: other.x }] });
    await expect(loadKeyRing(t.database.db, value, t.clock.now())).rejects.toThrow(
      `invalid SIGNING_KEYS: key ${key.kid}: x is not the public key of d`,
    );
  });
});
