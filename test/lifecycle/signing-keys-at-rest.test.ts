import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-error.js';
import { activations, signingKeys } from '../../src/db/schema.js';
import { openPrivateJwk } from '../../src/domain/tokens/key-encryption.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { loadKeyRing, rotateSigningKey, type KeyStoreOptions } from '../../src/domain/tokens/signing-key-store.js';
import { generatePrivateJwk } from '../../src/domain/tokens/signing-keys.js';
import { activatedInstall, confirmRequest } from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import { dumpAllTables, queryRows } from '../support/test-database.js';

const newKek = () => randomBytes(32);

describe('signing keys at rest', () => {
  const t = useTestApp();
  const options = (extra: Partial<KeyStoreOptions> = {}): KeyStoreOptions => ({
    verifyWindowSeconds: 3665,
    clock: t.clock,
    ...extra,
  });
  const rows = () => t.database.db.select().from(signingKeys);

  it('with KEY_ENCRYPTION_KEY, a database dump holds no usable private key, and the sealed key opens only with that KEK and kid', async () => {
    const kek = newKek();
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options({ kek }));
    const [row] = await rows();
    expect(row).toMatchObject({
      kid: ring.signing.kid,
      privateJwk: null,
      privateJwkSealed: expect.stringMatching(/^v1\.[0-9a-f]{8}\./),
    });
    const privateJwk = openPrivateJwk(kek, row!.kid, row!.privateJwkSealed!);
    const { text: dump } = await dumpAllTables(t.database.db);
    expect(privateJwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(dump).not.toContain(privateJwk.d);
    expect(dump).not.toContain('"d":');
    // Moved to another row (another kid) or opened with another KEK, it does not open.
    expect(() => openPrivateJwk(kek, 'key_0000000000000000', row!.privateJwkSealed!)).toThrow(/does not open/);
    expect(() => openPrivateJwk(newKek(), row!.kid, row!.privateJwkSealed!)).toThrow(/another KEY_ENCRYPTION_KEY/);
  });

  it('a key kept in clear without a KEK (the start line says so: key-protection.ts) is sealed by a later start with a KEK, and its tokens keep working', async () => {
    const warnings: string[] = [];
    const plain = await loadKeyRing(
      t.database.db,
      undefined,
      t.clock.now(),
      options({ warn: (m) => warnings.push(m) }),
    );
    expect(warnings).toEqual([]);
    expect((await rows())[0]!.privateJwk).toMatchObject({ d: expect.any(String) });
    const before = buildTestApp(t.database, plain, {}, t.clock);
    const install = await activatedInstall(before);

    const kek = newKek();
    const sealed = await loadKeyRing(
      t.database.db,
      undefined,
      t.clock.now(),
      options({ kek, warn: (m) => warnings.push(m) }),
    );
    expect(warnings).toEqual(['sealed 1 signing key(s) kept in clear under KEY_ENCRYPTION_KEY']);
    expect(sealed.signing.kid).toBe(plain.signing.kid);
    expect(await rows()).toEqual([expect.objectContaining({ privateJwk: null, privateJwkSealed: expect.any(String) })]);
    const after = buildTestApp(t.database, sealed, {}, t.clock);
    expect((await confirmRequest(after, install.activationId, install.installToken)).status).toBe(200);
  });

  it('a sealed key without its KEK, or with another one, stops the start with one line naming the variable', async () => {
    await loadKeyRing(t.database.db, undefined, t.clock.now(), options({ kek: newKek() }));
    // The kid is read before the refused start begins: awaited inside expect(), the refusal could arrive
    // before .rejects handles it (an unhandled rejection on PostgreSQL).
    const { kid } = (await rows())[0]!;
    await expect(loadKeyRing(t.database.db, undefined, t.clock.now(), options())).rejects.toThrow(
      new ConfigError(`signing key ${kid} is encrypted: set KEY_ENCRYPTION_KEY`),
    );
    await expect(loadKeyRing(t.database.db, undefined, t.clock.now(), options({ kek: newKek() }))).rejects.toThrow(
      /^invalid KEY_ENCRYPTION_KEY: signing key key_[0-9a-f]{16} is encrypted under another KEY_ENCRYPTION_KEY \(id [0-9a-f]{8}; this one is [0-9a-f]{8}\)$/,
    );
  });

  it('REQUIRE_KEY_ENCRYPTION: no key is ever stored in clear', async () => {
    await expect(
      loadKeyRing(t.database.db, undefined, t.clock.now(), options({ requireEncryption: true })),
    ).rejects.toThrow(ConfigError);
    expect(await rows()).toHaveLength(0);
    await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    await expect(
      loadKeyRing(t.database.db, undefined, t.clock.now(), options({ requireEncryption: true })),
    ).rejects.toThrow(/REQUIRE_KEY_ENCRYPTION is set and a signing key is stored in clear/);
  });

  it('REQUIRE_KEY_ENCRYPTION: a running server ignores a key it finds in clear (never loads, publishes or signs with it), saying so in one error line', async () => {
    const kek = newKek();
    const errors: { message: string; fields: Record<string, unknown> }[] = [];
    const ring = await loadKeyRing(
      t.database.db,
      undefined,
      t.clock.now(),
      options({ kek, requireEncryption: true, error: (message, fields) => errors.push({ message, fields }) }),
    );
    const app = buildTestApp(t.database, ring, {}, t.clock);
    const sealedKid = ring.signing.kid;
    // What `slowdns keys rotate` without KEY_ENCRYPTION_KEY did: the signer stops signing, a key in clear signs.
    const clear = await generatePrivateJwk();
    await t.database.db.update(signingKeys).set({ signingEndedAt: t.clock.now() });
    await t.database.db
      .insert(signingKeys)
      .values({ kid: clear.kid!, privateJwk: clear, privateJwkSealed: null, createdAt: t.clock.now() });

    t.clock.advance(60);
    await ring.refresh();
    await ring.refresh();
    expect(ring.signing.kid).toBe(sealedKid);
    expect(ring.publicJwks(t.clock.now()).keys.map((k) => k.kid)).toEqual([sealedKid]);
    expect(await ring.verifierFor(clear.kid!, t.clock.now())).toBeUndefined();
    const install = await activatedInstall(app);
    expect(decodeProtectedHeader(install.installToken).kid).toBe(sealedKid);
    // One line for the key however often the ring reloads, naming it and what to do, never its private part.
    expect(errors).toEqual([{ message: expect.stringMatching(/REQUIRE_KEY_ENCRYPTION/), fields: { kid: clear.kid } }]);
    expect(JSON.stringify(errors)).not.toContain(clear.d);
  });

  it('REQUIRE_KEY_ENCRYPTION: a key another instance rotated in, sealed, is still picked up beside a refused clear one', async () => {
    const kek = newKek();
    const errors: string[] = [];
    const ring = await loadKeyRing(
      t.database.db,
      undefined,
      t.clock.now(),
      options({ kek, requireEncryption: true, error: (message) => errors.push(message) }),
    );
    const clear = await generatePrivateJwk();
    await t.database.db.update(signingKeys).set({ signingEndedAt: t.clock.now() });
    await t.database.db
      .insert(signingKeys)
      .values({ kid: clear.kid!, privateJwk: clear, privateJwkSealed: null, createdAt: t.clock.now() });
    t.clock.advance(30);
    const sealed = await rotateSigningKey(t.database.db, t.clock.now(), options({ kek, requireEncryption: true }));
    await ring.refresh();
    expect(ring.signing.kid).toBe(sealed);
    expect(ring.publicJwks(t.clock.now()).keys.map((k) => k.kid)).not.toContain(clear.kid);
    expect(errors).toHaveLength(1);
  });

  it("install-token jtis are stored as their SHA-256: the row holds the hash of the token's jti, confirm consumes by it", async () => {
    const install = await activatedInstall(t);
    const jti = decodeJwt(install.installToken).jti!;
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, install.activationId));
    expect(row!.installTokenJtiHash).toBe(sha256Hex(jti));
    expect((await dumpAllTables(t.database.db)).text).not.toContain(jti);
    expect((await confirmRequest(t, install.activationId, install.installToken)).status).toBe(200);
    // The migration hashes existing jtis in SQL: the same function as sha256Hex.
    const [hashed] = await queryRows<{ h: string }>(
      t.database.db,
      sql`select encode(sha256(convert_to(${jti}, 'UTF8')), 'hex') as h`,
    );
    expect(hashed!.h).toBe(sha256Hex(jti));
  });
});
