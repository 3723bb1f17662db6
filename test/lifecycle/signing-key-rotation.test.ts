import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { signingKeys } from '../../src/db/schema.js';
import {
  listSigningKeys,
  loadKeyRing,
  retireSigningKey,
  rotateSigningKey,
  type KeyStoreOptions,
} from '../../src/domain/tokens/signing-key-store.js';
import { openPrivateJwk } from '../../src/domain/tokens/key-encryption.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { generatePrivateJwk, keyRingFromJwks, MAX_VERIFYING_KEYS } from '../../src/domain/tokens/signing-keys.js';
import { signPrecheckToken } from '../../src/domain/tokens/install-step-tokens.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  issueCode,
  machine,
  precheckToken,
} from '../support/install-flow.js';
import { buildTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/** The default token lifetimes: install tokens live 3600 s, so a rotated-out key verifies 3600 + 65 s. */
const WINDOW = 3665;

describe('signing key rotation', () => {
  const t = useTestApp();
  const options = (extra: Partial<KeyStoreOptions> = {}): KeyStoreOptions => ({
    verifyWindowSeconds: WINDOW,
    clock: t.clock,
    kek: Buffer.alloc(32, 7),
    ...extra,
  });
  const jwksKids = async (app: TestApp) =>
    ((await (await app.request('/.well-known/jwks.json')).json()) as { keys: { kid: string }[] }).keys.map(
      (k) => k.kid,
    );
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;

  it('old tokens verify until they expire, new tokens use the new key, the JWKS follows, then the old key retires', async () => {
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const app = buildTestApp(t.database, ring, {}, t.clock);
    const oldKid = ring.signing.kid;
    const before = await activatedInstall(app);
    expect(kidOf(before.installToken)).toBe(oldKid);

    const newKid = await rotateSigningKey(t.database.db, t.clock.now(), options());
    await ring.refresh();
    expect(ring.signing.kid).toBe(newKid);
    expect(await jwksKids(app)).toEqual([newKid, oldKid]);
    const after = await activatedInstall(app);
    expect(kidOf(after.installToken)).toBe(newKid);
    // The token the old key signed still confirms.
    expect((await confirmRequest(app, before.activationId, before.installToken)).status).toBe(200);
    expect((await listSigningKeys(t.database.db, t.clock.now(), WINDOW)).map((k) => [k.kid, k.state])).toEqual([
      [newKid, 'signing'],
      [oldKid, 'verifying'],
    ]);

    // Every token the old key signed has expired: it leaves the JWKS and is no longer trusted at all,
    // not even for a token (made here with its private key) that claims a later expiry.
    const oldRow = (await t.database.db.select().from(signingKeys)).find((r) => r.kid === oldKid)!;
    const oldKeyOnly = await keyRingFromJwks([openPrivateJwk(options().kek!, oldKid, oldRow.privateJwkSealed!)]);
    const code = await issueCode(app);
    const lateOldToken = await signPrecheckToken(
      oldKeyOnly,
      { codeHash: sha256Hex(code), machineId: machine.machine_id, sshFingerprint: machine.ssh_fingerprint },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 10 * 3600_000),
    );
    t.clock.advance(WINDOW + 1);
    expect(await jwksKids(app)).toEqual([newKid]);
    expect(await ring.verifierFor(oldKid, t.clock.now())).toBeUndefined();
    const res = await activateRequest(app, code, lateOldToken);
    expect((await res.json()).error.code).toBe('precheck_token_invalid');

    // A refresh retires it: its private key is gone.
    await ring.refresh();
    expect((await listSigningKeys(t.database.db, t.clock.now(), WINDOW)).map((k) => [k.kid, k.state])).toEqual([
      [newKid, 'signing'],
      [oldKid, 'retired'],
    ]);
    const retired = (await t.database.db.select().from(signingKeys)).find((r) => r.kid === oldKid)!;
    expect(retired).toMatchObject({ privateJwk: null, privateJwkSealed: null, retiredAt: t.clock.now() });
  });

  it('another instance learns of a rotation at the first token with the new kid', async () => {
    const ringA = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const ringB = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const b = buildTestApp(t.database, ringB, {}, t.clock);
    await rotateSigningKey(t.database.db, t.clock.now(), options());
    await ringA.refresh();
    const a = buildTestApp(t.database, ringA, {}, t.clock);
    const code = await issueCode(a);
    const token = await precheckToken(a, code);
    expect(kidOf(token)).toBe(ringA.signing.kid);
    expect(ringB.signing.kid).not.toBe(ringA.signing.kid);
    expect((await activateRequest(b, code, token)).status).toBe(200);
    expect(ringB.signing.kid).toBe(ringA.signing.kid);
  });

  it('retire refuses the signing key and a key whose tokens may still verify, unless forced', async () => {
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const oldKid = ring.signing.kid;
    await expect(
      retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: WINDOW }),
    ).rejects.toThrow(`signing key ${oldKid} is the one signing: rotate first`);
    await expect(
      retireSigningKey(t.database.db, { kid: 'key_nope', now: t.clock.now(), windowSeconds: WINDOW }),
    ).rejects.toThrow('no signing key key_nope');
    await rotateSigningKey(t.database.db, t.clock.now(), options());
    await expect(
      retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: WINDOW }),
    ).rejects.toThrow(/may still verify tokens until 2026-11-22T11:01:05\.000Z/);
    expect(
      await retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: WINDOW, force: true }),
    ).toMatchObject({
      kid: oldKid,
      state: 'retired',
    });
    await ring.refresh();
    expect(ring.publicJwks(t.clock.now()).keys.map((k) => k.kid)).not.toContain(oldKid);
  });

  it('retiring a retired key answers it retired again', async () => {
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const oldKid = ring.signing.kid;
    await rotateSigningKey(t.database.db, t.clock.now(), options());
    await retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: WINDOW, force: true });
    expect(
      await retireSigningKey(t.database.db, { kid: oldKid, now: t.clock.now(), windowSeconds: WINDOW }),
    ).toMatchObject({
      kid: oldKid,
      state: 'retired',
    });
  });

  it(`rotation is refused beyond ${MAX_VERIFYING_KEYS} keys that verify, so the JWKS never lists more, until one is retired`, async () => {
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const firstKid = ring.signing.kid;
    for (let i = 1; i < MAX_VERIFYING_KEYS; i++) await rotateSigningKey(t.database.db, t.clock.now(), options());
    await expect(rotateSigningKey(t.database.db, t.clock.now(), options())).rejects.toThrow(
      `${MAX_VERIFYING_KEYS} signing keys still verify tokens`,
    );
    const app = buildTestApp(t.database, ring, {}, t.clock);
    await ring.refresh();
    expect(await jwksKids(app)).toHaveLength(MAX_VERIFYING_KEYS);
    await retireSigningKey(t.database.db, { kid: firstKid, now: t.clock.now(), windowSeconds: WINDOW, force: true });
    await rotateSigningKey(t.database.db, t.clock.now(), options());
    await ring.refresh();
    expect(await jwksKids(app)).toHaveLength(MAX_VERIFYING_KEYS);
    expect(await jwksKids(app)).not.toContain(firstKid);
  });

  it(`SIGNING_KEYS with more than ${MAX_VERIFYING_KEYS} keys is refused`, async () => {
    const jwks = await Promise.all(Array.from({ length: MAX_VERIFYING_KEYS + 1 }, () => generatePrivateJwk()));
    await expect(keyRingFromJwks(jwks)).rejects.toThrow(
      `${MAX_VERIFYING_KEYS + 1} keys; at most ${MAX_VERIFYING_KEYS}`,
    );
    expect((await keyRingFromJwks(jwks.slice(0, MAX_VERIFYING_KEYS))).publicJwks(t.clock.now()).keys).toHaveLength(
      MAX_VERIFYING_KEYS,
    );
  });
});
