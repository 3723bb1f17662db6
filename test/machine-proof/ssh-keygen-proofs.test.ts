import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations } from '../../src/db/schema.js';
import { ADMIN_TOKEN, adminList } from '../admin/admin-requests.js';
import { eventTrail } from '../support/event-trail.js';
import { activatedInstall, activateRequest, confirmRequest, freshClient } from '../support/install-flow.js';
import {
  hostKeyFolder,
  precheckWithKey,
  provenActivate,
  sshKeygenSign,
  statementOf,
  ACTIVATE_VALUES,
  type HostKey,
  type HostKeyName,
} from '../support/ssh-host-keys.js';
import { rsaSignature } from '../support/sshsig-forgery.js';
import { useTestApp } from '../support/test-app.js';

const ACCEPTED: HostKeyName[] = ['ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'rsa-2048', 'rsa-3072'];

describe("machine proofs made by Debian's ssh-keygen (DESIGN §24)", () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const folder = hostKeyFolder();
  const keys = new Map<HostKeyName, HostKey>();
  beforeAll(async () => {
    const made = await folder;
    for (const name of ACCEPTED) keys.set(name, await made.make(name));
  });
  afterAll(async () => (await folder).cleanUp());

  it('precheck answers a fresh 32-byte proof_challenge and machine_proof optional', async () => {
    const first = await precheckWithKey(t, keys.get('ed25519')!);
    const second = await precheckWithKey(t, keys.get('ed25519')!);
    expect(first.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.challenge, 'base64url')).toHaveLength(32);
    expect(second.challenge).not.toBe(first.challenge);
    expect(first.machineProof).toBe('optional');
  });

  it.each(ACCEPTED)(
    'a %s host key signed by ssh-keygen -Y sign proves the machine: ssh_key_proven in the answer and the row',
    async (name) => {
      const { res } = await provenActivate(t, keys.get(name)!);
      expect(res.status).toBe(200);
      const { data } = await res.json();
      expect(data.machine_binding).toMatchObject({
        ssh_fingerprint: keys.get(name)!.fingerprint,
        ssh_key_proven: true,
      });
      const [row] = await t.database.db.select().from(activations).where(eq(activations.id, data.activation_id));
      expect(row!.sshKeyProven).toBe(true);
    },
  );

  it('a signature with hash sha256, and an RSA signature with rsa-sha2-256, prove the machine too', async () => {
    const ed25519 = keys.get('ed25519')!;
    const precheck = await precheckWithKey(t, ed25519);
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const sha256 = await sshKeygenSign(ed25519.file, statement, { hash: 'sha256' });
    const res = await activateRequest(t, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: ed25519.publicLine,
      ssh_key_signature: sha256,
    });
    expect((await res.json()).data.machine_binding.ssh_key_proven).toBe(true);

    const rsa = keys.get('rsa-2048')!;
    const rsaPrecheck = await precheckWithKey(t, rsa);
    const rsaStatement = statementOf({
      challenge: rsaPrecheck.challenge,
      machine_id: rsaPrecheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const rsaRes = await activateRequest(t, rsaPrecheck.code, rsaPrecheck.token, {
      ...rsaPrecheck.machine,
      ssh_host_key: rsa.publicLine,
      ssh_key_signature: await rsaSignature(rsa.file, rsaStatement, 'rsa-sha2-256'),
    });
    expect((await rsaRes.json()).data.machine_binding.ssh_key_proven).toBe(true);
  });

  it('the values are signed as sent: a hostname in capitals with a trailing dot and a padded IP, stored normalised', async () => {
    const key = keys.get('ecdsa-256')!;
    const sent = { hostname: ' VPN2.Example.NET. ', public_ip: '203.0.113.9\n' };
    const { res } = await provenActivate(t, key, { signed: sent, body: sent });
    expect(res.status).toBe(200);
    expect((await res.json()).data.machine_binding).toMatchObject({
      hostname: 'vpn2.example.net',
      public_ip: '203.0.113.9',
      ssh_key_proven: true,
    });
  });

  it('without a proof the seed body still activates under MACHINE_PROOF=optional, unproven', async () => {
    const plain = await activatedInstall(t);
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, plain.activationId));
    expect(row!.sshKeyProven).toBe(false);
  });

  it('ssh_key_proven reaches the event, the admin show and list with its filter, and the receipt', async () => {
    const trail = eventTrail(t);
    await trail.take();
    const { res } = await provenActivate(t, keys.get('ed25519')!);
    const { data } = await res.json();
    const unproven = await activatedInstall(t);
    const created = (await trail.take()).filter((e) => e.type === 'activation.created');
    expect(created.map((e) => e.data)).toEqual([
      expect.objectContaining({ ssh_key_proven: true }),
      expect.objectContaining({ ssh_key_proven: false }),
    ]);

    const shown = await t.request(`/api/v2/admin/activations/${data.activation_id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect((await shown.json()).data.machine_binding.ssh_key_proven).toBe(true);
    const proven = await adminList(t, 'activations', { ssh_key_proven: 'true' });
    const others = await adminList(t, 'activations', { ssh_key_proven: 'false' });
    expect(proven.items.map((i) => i.activation_id)).toContain(data.activation_id);
    expect(proven.items.every((i) => i.machine_binding.ssh_key_proven)).toBe(true);
    expect(others.items.map((i) => i.activation_id)).toContain(unproven.activationId);
    expect(others.items.map((i) => i.activation_id)).not.toContain(data.activation_id);

    const confirmed = await confirmRequest(t, data.activation_id, data.install_token);
    const receipt = (await confirmed.json()).data.receipt as string;
    const claims = JSON.parse(Buffer.from(receipt.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ ssh_key_proven: true, ssh_fingerprint: keys.get('ed25519')!.fingerprint });
  });

  it('a repeated activate of a proven activation proves again: the same activation with a new ECDSA signature, 409 without one', async () => {
    const key = keys.get('ecdsa-384')!;
    const first = await provenActivate(t, key);
    const { data } = await first.res.json();
    const { precheck } = first;
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const again = await sshKeygenSign(key.file, statement);
    expect(again).not.toBe(first.signature);
    const address = freshClient().address;
    const repeated = await activateRequest(
      t,
      precheck.code,
      precheck.token,
      {
        ...precheck.machine,
        ssh_host_key: key.publicLine,
        ssh_key_signature: again,
      },
      address,
    );
    expect(repeated.status).toBe(200);
    expect((await repeated.json()).data.activation_id).toBe(data.activation_id);
    const unproven = await activateRequest(t, precheck.code, precheck.token, precheck.machine, address);
    expect({ status: unproven.status, code: (await unproven.json()).error.code }).toEqual({
      status: 409,
      code: 'install_code_unavailable',
    });
  });
});
