import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations } from '../../src/db/schema.js';
import { eventTrail } from '../support/event-trail.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  expectError,
  issueCode,
  precheckToken,
} from '../support/install-flow.js';
import {
  ACTIVATE_VALUES,
  hostKeyFolder,
  precheckWithKey,
  provenActivate,
  sshKeygenSign,
  statementOf,
  type HostKey,
} from '../support/ssh-host-keys.js';
import { buildTestApp, useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode } from '../fleet-codes/fleet-requests.js';

/** A proven activation, confirmed: the machine's identity is now bound. */
async function provenInstall(t: TestApp, key: HostKey, machineId?: string) {
  const { res, precheck } = await provenActivate(t, key, { machineId });
  expect(res.status).toBe(200);
  const { data } = await res.json();
  expect((await confirmRequest(t, data.activation_id, data.install_token)).status).toBe(200);
  return { activationId: data.activation_id as string, machineId: precheck.machine.machine_id };
}

const row = async (t: TestApp, id: string) =>
  (await t.database.db.select().from(activations).where(eq(activations.id, id)))[0]!;

describe('what a proof changes for duplicates, DUPLICATE_MACHINE_POLICY=refuse and fleet codes (DESIGN §24)', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const folder = hostKeyFolder();
  let keyA: HostKey;
  let keyB: HostKey;
  beforeAll(async () => {
    const made = await folder;
    keyA = await made.make('ed25519');
    keyB = await made.make('ecdsa-256');
  });
  afterAll(async () => (await folder).cleanUp());

  it('two machine ids proving one host key are a cloned image: activation.duplicate_detected with match ssh_host_key', async () => {
    const original = await provenInstall(t, keyA);
    const trail = eventTrail(t);
    await trail.take();
    const { res } = await provenActivate(t, keyA);
    const { data } = await res.json();
    expect((await row(t, data.activation_id)).duplicateOf).toBe(original.activationId);
    expect((await trail.take()).at(-1)).toMatchObject({
      type: 'activation.duplicate_detected',
      data: { duplicate_of: original.activationId, match: 'ssh_host_key' },
    });
  });

  it('two different proven keys under one machine id are flagged (match machine_id), never refused, even under refuse', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    const original = await provenInstall(refusing, keyA);
    const trail = eventTrail(t);
    await trail.take();
    const { res } = await provenActivate(refusing, keyB, { machineId: original.machineId });
    expect(res.status).toBe(200);
    expect((await trail.take()).at(-1)).toMatchObject({
      type: 'activation.duplicate_detected',
      data: { duplicate_of: original.activationId, match: 'machine_id' },
    });
  });

  it('refuse: an unproven activate of a machine id bound to a proven key is 409 machine_duplicate', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    const original = await provenInstall(refusing, keyA);
    const code = await issueCode(refusing);
    const claimed = { machine_id: original.machineId, ssh_fingerprint: keyB.fingerprint };
    const res = await activateRequest(refusing, code, await precheckToken(refusing, code, claimed), claimed);
    await expectError(res, 409, 'machine_duplicate');
  });

  it('refuse: a machine that proves its key is blocked neither by an unproven activation with its id nor by someone proving another key under it', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    // A stranger who read the machine id confirms an unproven install with it, and another proves a key of its own under it.
    const stranger = await activatedInstall(refusing, {
      machine_id: 'abcdefabcdefabcdefabcdefabcdef01',
      ssh_fingerprint: keyB.fingerprint,
    });
    expect((await confirmRequest(refusing, stranger.activationId, stranger.installToken)).status).toBe(200);
    const prover = await provenInstall(refusing, keyB, 'abcdefabcdefabcdefabcdefabcdef02');
    await provenInstall(refusing, keyB, 'abcdefabcdefabcdefabcdefabcdef01');
    // The real machine proves its own key under each of those ids: admitted, flagged.
    for (const machineId of ['abcdefabcdefabcdefabcdefabcdef01', prover.machineId]) {
      const { res } = await provenActivate(refusing, keyA, { machineId });
      expect(res.status).toBe(200);
      expect((await row(t, (await res.json()).data.activation_id)).duplicateOf).not.toBeNull();
    }
  });

  it('refuse: an unproven clone of an unproven install is flagged, not refused (no proven key to protect)', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    const first = await activatedInstall(refusing);
    const [original] = await t.database.db.select().from(activations).where(eq(activations.id, first.activationId));
    expect((await confirmRequest(refusing, first.activationId, first.installToken)).status).toBe(200);
    const clone = await activatedInstall(refusing, {
      machine_id: original!.machineId,
      ssh_fingerprint: keyB.fingerprint,
    });
    expect((await row(t, clone.activationId)).duplicateOf).toBe(first.activationId);
  });

  it('a fleet code made with require_machine_proof: its precheck says required, an unproven activate is 403, a proven one activates', async () => {
    const { install_code: code } = await createCode(t, { uses: 3, require_machine_proof: true });
    const shown = await t.request('/api/v2/admin/install-codes?limit=1', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect((await shown.json()).data.items[0].require_machine_proof).toBe(true);
    const precheck = await precheckWithKey(t, keyA, { code });
    expect(precheck.machineProof).toBe('required');
    await expectError(await activateRequest(t, code, precheck.token, precheck.machine), 403, 'machine_proof_required');
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const proven = await activateRequest(t, code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: keyA.publicLine,
      ssh_key_signature: await sshKeygenSign(keyA.file, statement),
    });
    expect(proven.status).toBe(200);
    // A code made without it follows MACHINE_PROOF (optional here).
    const { install_code: open } = await createCode(t, { uses: 3 });
    expect((await precheckWithKey(t, keyA, { code: open })).machineProof).toBe('optional');
  });
});
