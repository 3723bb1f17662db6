import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCodePrechecks } from '../../src/db/schema.js';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { randomMachine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { createCode, fleetPrecheck } from '../fleet-codes/fleet-requests.js';
import { slowdns } from '../support/slowdns-in-process.js';

describe('fleet approval from the command: codes show, waiting, approve, deny (issue 59)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let service: HttpServer;
  let operator: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp({ ADMIN_TOKEN });
    service = await serveOverHttp(() => t.app);
    operator = { SLOWDNS_URL: service.origin, SLOWDNS_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  afterAll(async () => {
    await service?.close();
    await t?.close();
  });

  it('codes show lists the machines waiting, codes approve and deny decide them, and codes waiting then lists none', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 5, require_approval: true });
    const machines = [randomMachine(), randomMachine()];
    for (const [i, machine] of machines.entries())
      expect((await fleetPrecheck(t, code, machine, `198.51.100.${i + 1}`)).status).toBe(200);
    const prechecks = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.installCodeId, id));

    const shown = await slowdns(['codes', 'show', id], operator);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain(`2 machines waiting for a decision; slowdns codes approve|deny ${id} <precheck>:`);
    // A precheck carries no hostname (the installer gives it at activate, after the decision): each row names
    // the machine by its id, SSH key and the address it prechecked from, and the output says so.
    const listed = await slowdns(['codes', 'waiting', id], operator);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    for (const output of [shown.stdout, listed.stdout]) {
      for (const p of prechecks) {
        expect(output).toContain(p.id);
        expect(output).toContain(p.machineId);
        expect(output).toContain(p.sshFingerprint);
        expect(output).toContain(p.ip);
      }
      expect(output).toContain('No hostname yet: a machine gives it at activate, after the decision.');
    }

    const [first, second] = prechecks;
    const approved = await slowdns(['codes', 'approve', id, first!.id, '--reason', 'CHG-7'], operator);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`${first!.id} is approved.`);
    const denied = await slowdns(['codes', 'deny', id, second!.id, '--json'], operator);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      install_code_id: id,
      precheck_id: second!.id,
      decision: 'denied',
    });

    const decided = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.installCodeId, id));
    expect(Object.fromEntries(decided.map((p) => [p.id, p.decision]))).toEqual({
      [first!.id]: 'approved',
      [second!.id]: 'denied',
    });
    const waiting = await slowdns(['codes', 'waiting', id, '--json'], operator);
    expect(waiting.code).toBe(0);
    expect(JSON.parse(waiting.stdout)).toEqual([]);
    expect((await slowdns(['codes', 'show', id], operator)).stdout).not.toContain('waiting for a decision');
    // The other decision afterwards is refused, with the service's own words.
    const again = await slowdns(['codes', 'deny', id, first!.id], operator);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^slowdns: 409 approval_decided: /);
  });
});
