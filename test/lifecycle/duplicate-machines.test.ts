import { eq, isNotNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../src/db/schema.js';
import { createMetricsApp } from '../../src/metrics/metrics-app.js';
import { ADMIN_TOKEN, adminList } from '../admin/admin-requests.js';
import { eventTrail } from '../support/event-trail.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  issue,
  issueCode,
  newBrowser,
  precheckToken,
  randomMachine,
  releaseRequest,
  type Machine,
} from '../support/install-flow.js';
import { hostKeyFolder, provenActivate } from '../support/ssh-host-keys.js';
import { buildTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/** A machine installed for good: activated and confirmed. */
async function installed(t: TestApp, onMachine: Machine) {
  const a = await activatedInstall(t, onMachine);
  expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
  return a;
}

const duplicateOf = async (t: TestApp, activationId: string) =>
  (
    await t.database.db.select({ d: activations.duplicateOf }).from(activations).where(eq(activations.id, activationId))
  )[0]!.d;

const duplicateSamples = async (t: TestApp) => {
  const text = await (await createMetricsApp(t.metrics).request('/metrics')).text();
  return Number(
    text.match(
      /^slowdns_lifecycle_transitions_total\{type="activation\.duplicate_detected",actor="installer"\} (\d+)/m,
    )?.[1],
  );
};

describe('duplicate machines (a cloned image) at activate', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('the same machine_id with another SSH key is flagged: duplicate_of, its event, the metric, the admin list and its filter', async () => {
    const first = randomMachine();
    const original = await installed(t, first);
    const trail = eventTrail(t);
    await trail.take();
    const flaggedBefore = await duplicateSamples(t);
    t.clock.advance(1); // the newer one lists first
    const clone = await activatedInstall(t, { ...randomMachine(), machine_id: first.machine_id });
    expect(await duplicateOf(t, clone.activationId)).toBe(original.activationId);
    const recorded = await trail.take();
    expect(recorded.map((e) => e.type)).toEqual([
      'install_code.issued',
      'install_code.activated',
      'activation.created',
      'activation.duplicate_detected',
    ]);
    expect(recorded[3]).toMatchObject({
      activationId: clone.activationId,
      data: { duplicate_of: original.activationId, match: 'machine_id' },
    });
    expect((await duplicateSamples(t)) - flaggedBefore).toBe(1);

    const all = await adminList(t, 'activations');
    expect(all.items.map((i) => [i.activation_id, i.duplicate_of])).toEqual([
      [clone.activationId, original.activationId],
      [original.activationId, null],
    ]);
    expect((await adminList(t, 'activations', { duplicate: 'true' })).items.map((i) => i.activation_id)).toEqual([
      clone.activationId,
    ]);
    expect((await adminList(t, 'activations', { duplicate: 'false' })).items.map((i) => i.activation_id)).toEqual([
      original.activationId,
    ]);
  });

  it('the same SSH key with another machine_id is flagged, with match ssh_fingerprint', async () => {
    const first = randomMachine();
    const original = await installed(t, first);
    const trail = eventTrail(t);
    await trail.take();
    const clone = await activatedInstall(t, { ...randomMachine(), ssh_fingerprint: first.ssh_fingerprint });
    expect(await duplicateOf(t, clone.activationId)).toBe(original.activationId);
    expect((await trail.take()).at(-1)).toMatchObject({
      type: 'activation.duplicate_detected',
      data: { duplicate_of: original.activationId, match: 'ssh_fingerprint' },
    });
  });

  it('a reinstall of the same machine after a release, and the same machine confirmed again, are no duplicates', async () => {
    const flaggedBefore = await duplicateSamples(t);
    const same = randomMachine();
    const released = await activatedInstall(t, same);
    expect((await releaseRequest(t, released.activationId, { address: released.address })).status).toBe(200);
    const again = await installed(t, same);
    expect(await duplicateOf(t, again.activationId)).toBeNull();
    // The same pair once more (a reinstall of a confirmed machine): still its own identity.
    const reinstall = await activatedInstall(t, same);
    expect(await duplicateOf(t, reinstall.activationId)).toBeNull();
    // Another SSH key on a machine whose only earlier install was released: not bound, not a duplicate.
    const other = randomMachine();
    const gone = await activatedInstall(t, other);
    expect((await releaseRequest(t, gone.activationId, { address: gone.address })).status).toBe(200);
    const rekeyed = await activatedInstall(t, { ...randomMachine(), machine_id: other.machine_id });
    expect(await duplicateOf(t, rekeyed.activationId)).toBeNull();
    expect(await duplicateSamples(t)).toBe(flaggedBefore);
    expect(await t.database.db.select().from(activations).where(isNotNull(activations.duplicateOf))).toEqual([]);
  });

  it("the person's page says the identity is in use, never where: identity_in_use, and not the other host's name or address", async () => {
    const first = randomMachine();
    const code = await issueCode(t);
    const original = { ...first, hostname: 'secret-host.example.org', public_ip: '192.0.2.44' };
    const a = await activateRequest(t, code, await precheckToken(t, code, first), original);
    const { data } = await a.json();
    expect((await confirmRequest(t, data.activation_id, data.install_token)).status).toBe(200);

    const browser = await newBrowser(t);
    const issued = await issue(t, browser);
    const clone = { ...randomMachine(), ssh_fingerprint: first.ssh_fingerprint };
    expect((await activateRequest(t, issued.code, await precheckToken(t, issued.code, clone), clone)).status).toBe(200);
    const res = await t.request(
      '/api/v2/slowdns/code/status',
      { headers: { cookie: browser.cookie, ...browser.headers } },
      browser.address,
    );
    const text = await res.text();
    expect(JSON.parse(text).data.items[0]).toMatchObject({
      install_code_id: issued.id,
      status: 'activated',
      identity_in_use: true,
    });
    expect(text).not.toContain('secret-host');
    expect(text).not.toContain('192.0.2.44');
    expect(text).not.toContain(data.activation_id);
  });

  it('DUPLICATE_MACHINE_POLICY=refuse: 409 machine_duplicate for an unproven machine_id match of a proven install, saying how to give the clone its own identity, and leaves the code usable', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    const keys = await hostKeyFolder();
    const { res: proven } = await provenActivate(refusing, await keys.make('ed25519'));
    const { data } = await proven.json();
    expect((await confirmRequest(refusing, data.activation_id, data.install_token)).status).toBe(200);
    await keys.cleanUp();
    const clone = { ...randomMachine(), machine_id: data.machine_binding.machine_id };
    const code = await issueCode(refusing);
    const res = await activateRequest(refusing, code, await precheckToken(refusing, code, clone), clone);
    const body = await res.json();
    expect({ status: res.status, code: body.error.code }).toEqual({ status: 409, code: 'machine_duplicate' });
    expect(body.error.message).toMatch(/systemd-machine-id-setup/);
    const [row] = await t.database.db.select().from(installCodes).where(eq(installCodes.status, 'issued'));
    expect(row).toBeDefined();
    expect(await t.database.db.select().from(activations)).toHaveLength(1);
  });

  it('DUPLICATE_MACHINE_POLICY=refuse: a fingerprint match alone is flagged, never refused', async () => {
    const refusing = buildTestApp(t.database, t.keys, { ADMIN_TOKEN, DUPLICATE_MACHINE_POLICY: 'refuse' }, t.clock);
    const first = randomMachine();
    await installed(refusing, first);
    // A fingerprint match alone never blocks (a fingerprint can be scanned from outside): flagged only.
    const sameKey = await activatedInstall(refusing, { ...randomMachine(), ssh_fingerprint: first.ssh_fingerprint });
    expect(await duplicateOf(t, sameKey.activationId)).not.toBeNull();
  });
});
