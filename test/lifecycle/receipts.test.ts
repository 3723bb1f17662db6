import { createHmac } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { activations, receiptKeys, signingKeys } from '../../src/db/schema.js';
import { openPrivateJwk } from '../../src/domain/tokens/key-encryption.js';
import { loadKeyRing, rotateSigningKey, type KeyStoreOptions } from '../../src/domain/tokens/signing-key-store.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { generatePrivateJwk, keyRingFromJwks, type KeyRing } from '../../src/domain/tokens/signing-keys.js';
import { signPrecheckToken } from '../../src/domain/tokens/install-step-tokens.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  INSTALLER_VERSION,
  issueCode,
  machine,
  randomMachine,
} from '../support/install-flow.js';
import { buildTestApp, useTestApp, type TestApp } from '../support/test-app.js';

const WINDOW = 3665;
const DAY = 24 * 3600;

const jwksOf = async (app: TestApp) => (await (await app.request('/.well-known/jwks.json')).json()) as JSONWebKeySet;

/** What any integrator does with jose: the algorithm, the type and the issuer pinned. */
const verifyWithJose = (receipt: string, jwks: JSONWebKeySet) =>
  jwtVerify(receipt, createLocalJWKSet(jwks), {
    algorithms: ['EdDSA'],
    typ: 'slowdns-receipt+jwt',
    issuer: 'slowdns-activation',
  });

async function confirmedReceipt(app: TestApp, onMachine = randomMachine()) {
  const activated = await activatedInstall(app, onMachine);
  const res = await confirmRequest(app, activated.activationId, activated.installToken);
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return { ...activated, receipt: data.receipt as string };
}

const statusRequest = (app: TestApp, activationId: string, installToken: string) =>
  app.request('/api/v2/slowdns/install/status', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ activation_id: activationId, install_token: installToken }),
  });

describe('activation receipts', () => {
  const t = useTestApp();
  const options = (): KeyStoreOptions => ({ verifyWindowSeconds: WINDOW, clock: t.clock, kek: Buffer.alloc(32, 7) });

  it('confirm answers a receipt that jose verifies against the served JWKS, with the claims of §16', async () => {
    const onMachine = randomMachine();
    const { activationId, code, receipt } = await confirmedReceipt(t, onMachine);
    const { payload, protectedHeader } = await verifyWithJose(receipt, await jwksOf(t));
    expect(protectedHeader).toEqual({ typ: 'slowdns-receipt+jwt', kid: t.keys.signing.kid, alg: 'EdDSA' });
    const [row] = await t.database.db.select().from(activations);
    expect(payload).toEqual({
      iss: 'slowdns-activation',
      sub: activationId,
      install_code_id: row!.installCodeId,
      hostname: row!.hostname,
      public_ip: row!.publicIp,
      machine_id_hmac: createHmac('sha256', 'slowdns-receipt-v1').update(onMachine.machine_id).digest('hex'),
      ssh_fingerprint: onMachine.ssh_fingerprint,
      ssh_key_proven: false,
      requested_ref: row!.requestedRef,
      installer_version: INSTALLER_VERSION,
      iat: Math.floor(t.clock.now().getTime() / 1000),
    });
    // Never the machine id itself, nor the code.
    expect(Buffer.from(receipt.split('.')[1]!, 'base64url').toString()).not.toContain(onMachine.machine_id);
    expect(receipt).not.toContain(code);
  });

  it('install status answers the same receipt once confirmed, and none before', async () => {
    const activated = await activatedInstall(t);
    const before = await (await statusRequest(t, activated.activationId, activated.installToken)).json();
    expect(before.data.receipt).toBeNull();
    const confirmed = await (await confirmRequest(t, activated.activationId, activated.installToken)).json();
    t.clock.advance(120);
    const after = await (await statusRequest(t, activated.activationId, activated.installToken)).json();
    expect(after.data.receipt).toBe(confirmed.data.receipt);
  });

  it('a token is never verified by a receipt key, nor a receipt by the token verifier (the types differ)', async () => {
    const { receipt, installToken } = await confirmedReceipt(t);
    const jwks = await jwksOf(t);
    await expect(verifyWithJose(installToken, jwks)).rejects.toThrow(/typ/);
    // A receipt presented as an install token (to status) is refused.
    const activated = await activatedInstall(t);
    const res = await statusRequest(t, activated.activationId, receipt);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('install_token_invalid');
  });

  it('a key that left the token ring after a rotation still verifies the receipts it signed, never a token', async () => {
    const ring = await loadKeyRing(t.database.db, undefined, t.clock.now(), options());
    const app = buildTestApp(t.database, ring, {}, t.clock);
    const oldKid = ring.signing.kid;
    const { receipt } = await confirmedReceipt(app);
    expect(decodeProtectedHeader(receipt).kid).toBe(oldKid);

    await rotateSigningKey(t.database.db, t.clock.now(), options());
    await ring.refresh();
    const oldRow = (await t.database.db.select().from(signingKeys)).find((r) => r.kid === oldKid)!;
    const oldKeyOnly = await keyRingFromJwks([openPrivateJwk(options().kek!, oldKid, oldRow.privateJwkSealed!)]);
    t.clock.advance(WINDOW + 1);
    await ring.refresh();
    expect(await ring.verifierFor(oldKid, t.clock.now())).toBeUndefined();

    const jwks = await jwksOf(app);
    expect(jwks.keys.map((k) => k.kid)).toEqual([ring.signing.kid, oldKid]);
    expect((await verifyWithJose(receipt, jwks)).payload.sub).toMatch(/^act_/);

    const code = await issueCode(app);
    const lateOldToken = await signPrecheckToken(
      oldKeyOnly,
      { codeHash: sha256Hex(code), machineId: machine.machine_id, sshFingerprint: machine.ssh_fingerprint },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 3600_000),
    );
    const res = await activateRequest(app, code, lateOldToken);
    expect((await res.json()).error.code).toBe('precheck_token_invalid');
  });

  it('after SIGNING_KEYS changed, the old key still verifies its receipts on the restarted service, never a token', async () => {
    const first = await generatePrivateJwk();
    const before = buildTestApp(t.database, await keyRingFromJwks([first]), {}, t.clock);
    const { receipt } = await confirmedReceipt(before);
    t.clock.advance(DAY);
    const after = buildTestApp(t.database, await keyRingFromJwks([await generatePrivateJwk()]), {}, t.clock);
    const jwks = await jwksOf(after);
    expect(jwks.keys.map((k) => k.kid)).toEqual([after.keys.signing.kid, first.kid]);
    expect(jwks.keys[1]).toEqual({ kty: 'OKP', crv: 'Ed25519', x: first.x, kid: first.kid, alg: 'EdDSA', use: 'sig' });
    expect((await verifyWithJose(receipt, jwks)).payload.iss).toBe('slowdns-activation');

    const code = await issueCode(after);
    const tokenBy = async (ring: KeyRing) =>
      signPrecheckToken(
        ring,
        { codeHash: sha256Hex(code), machineId: machine.machine_id, sshFingerprint: machine.ssh_fingerprint },
        t.clock.now(),
        new Date(t.clock.now().getTime() + 600_000),
      );
    const refused = await activateRequest(after, code, await tokenBy(await keyRingFromJwks([first])));
    expect((await refused.json()).error.code).toBe('precheck_token_invalid');
    // The same token signed by the ring's key passes: only the key made the difference.
    expect((await activateRequest(after, code, await tokenBy(after.keys))).status).toBe(200);
  });

  it('a key leaves the JWKS RECEIPT_VERIFY_DAYS after its last receipt, not before', async () => {
    const first = await generatePrivateJwk();
    const before = buildTestApp(t.database, await keyRingFromJwks([first]), { RECEIPT_VERIFY_DAYS: '30' }, t.clock);
    await confirmedReceipt(before);
    const [kept] = await t.database.db.select().from(receiptKeys);
    expect(kept).toMatchObject({ kid: first.kid, publicKey: first.x });

    const other = await keyRingFromJwks([await generatePrivateJwk()]);
    t.clock.advance(30 * DAY - 3600);
    expect(
      (await jwksOf(buildTestApp(t.database, other, { RECEIPT_VERIFY_DAYS: '30' }, t.clock))).keys.map((k) => k.kid),
    ).toContain(first.kid);
    t.clock.advance(3600 + 61);
    expect(
      (await jwksOf(buildTestApp(t.database, other, { RECEIPT_VERIFY_DAYS: '30' }, t.clock))).keys.map((k) => k.kid),
    ).not.toContain(first.kid);
  });
});
