import { describe, expect, it } from 'vitest';
import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import {
  activateRequest,
  freshClient,
  issueCode,
  precheckToken,
  randomMachine,
  type Machine,
} from '../support/install-flow.js';
import { useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminList } from './admin-requests.js';

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Installed {
  code: string;
  activationId: string;
  serverId: string;
  machine: Machine;
}

/** Issue → precheck → activate (as `hostname` at `publicIp`) → register. */
async function installed(t: TestApp, hostname: string, publicIp: string): Promise<Installed> {
  const machine = randomMachine();
  const code = await issueCode(t);
  const activated = await activateRequest(
    t,
    code,
    await precheckToken(t, code, machine),
    { ...machine, hostname, public_ip: publicIp },
    freshClient().address,
  );
  expect(activated.status).toBe(200);
  const { activation_id: activationId, install_token } = (await activated.json()).data;
  const registered = await registerRequest(t, {
    activation_id: activationId,
    install_token,
    agent_version: AGENT_VERSION,
  });
  expect(registered.status).toBe(201);
  return { code, activationId, serverId: (await registered.json()).data.server_id, machine };
}

describe('admin search: q, ip, machine_id, ssh_fingerprint on the lists of codes, activations and servers', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  /** The ids a list answers for `query`, as a set of names of the installs above. */
  const found = async (
    list: 'install-codes' | 'activations' | 'servers',
    query: Record<string, string>,
    installs: Record<string, Installed>,
  ) => {
    const idKey = { 'install-codes': 'install_code_id', activations: 'activation_id', servers: 'server_id' }[list];
    const ids = (await adminList(t, list, query)).items.map((item) => item[idKey] as string);
    const names = Object.entries(installs).map(
      ([name, i]) =>
        [name, { 'install-codes': codeIdOf(i), activations: i.activationId, servers: i.serverId }[list]] as const,
    );
    return ids.map((id) => names.find(([, known]) => known === id)?.[0] ?? id).sort();
  };
  const codeIds = new Map<string, string>();
  const codeIdOf = (i: Installed) => codeIds.get(i.activationId)!;

  it('finds by each filter, alone and together, on all three lists', async () => {
    const installs = {
      a: await installed(t, 'vpn-c1.example.net', '203.0.113.7'),
      b: await installed(t, 'vpn-c2.example.org', '203.0.113.200'),
      c: await installed(t, 'mail.example.net', '198.51.100.9'),
      d: await installed(t, 'vpn6.example.net', '2001:db8:1200::7'),
    };
    for (const item of (await adminList(t, 'activations')).items) codeIds.set(item.activation_id, item.install_code_id);

    for (const list of ['activations', 'servers'] as const) {
      // q: part of the hostname, case-insensitive, or the start of the id (with or without its prefix)
      expect(await found(list, { q: 'vpn-c' }, installs), list).toEqual(['a', 'b']);
      expect(await found(list, { q: 'VPN-C2' }, installs), list).toEqual(['b']);
      expect(await found(list, { q: 'example.net' }, installs), list).toEqual(['a', 'c', 'd']);
      const id = list === 'activations' ? installs.c.activationId : installs.c.serverId;
      expect(await found(list, { q: id.slice(4, 12) }, installs), list).toEqual(['c']);
      expect(await found(list, { q: id.slice(4, 12).toUpperCase() }, installs), list).toEqual(['c']);
      expect(await found(list, { q: id }, installs), list).toEqual(['c']);
      // every start of the id's hex, whatever its last digit (the range's end is the next digit)
      for (let end = 10; end <= id.length; end++)
        expect(await found(list, { q: id.slice(0, end) }, installs), `${list} ${id.slice(0, end)}`).toEqual(['c']);
      // a part in the middle of an id is not its start
      expect(await found(list, { q: id.slice(8, 16) }, installs), list).toEqual([]);
      // `%` and `_` are letters, not wildcards
      expect(await found(list, { q: 'vpn_c' }, installs), list).toEqual([]);
      expect(await found(list, { q: 'vpn%' }, installs), list).toEqual([]);
      // ip: an address (any spelling), an IPv4 or IPv6 network
      expect(await found(list, { ip: '203.0.113.7' }, installs), list).toEqual(['a']);
      expect(await found(list, { ip: '203.0.113.0/24' }, installs), list).toEqual(['a', 'b']);
      expect(await found(list, { ip: '203.0.113.128/25' }, installs), list).toEqual(['b']);
      expect(await found(list, { ip: '0.0.0.0/0' }, installs), list).toEqual(['a', 'b', 'c']);
      expect(await found(list, { ip: '2001:DB8:1200:0::7' }, installs), list).toEqual(['d']);
      expect(await found(list, { ip: '2001:db8::/32' }, installs), list).toEqual(['d']);
      expect(await found(list, { ip: '::ffff:198.51.100.9' }, installs), list).toEqual(['c']);
      // machine_id, ssh_fingerprint: exact
      expect(await found(list, { machine_id: installs.b.machine.machine_id }, installs), list).toEqual(['b']);
      expect(await found(list, { ssh_fingerprint: installs.d.machine.ssh_fingerprint }, installs), list).toEqual(['d']);
      // together: every filter holds
      expect(
        await found(list, { q: 'vpn', ip: '203.0.113.0/24', machine_id: installs.a.machine.machine_id }, installs),
        list,
      ).toEqual(['a']);
      expect(await found(list, { q: 'mail', ip: '203.0.113.0/24' }, installs), list).toEqual([]);
    }

    // Codes: q looks in the hint and at the start of the id; the machine filters find the code its activation used.
    const hint = (await adminList(t, 'install-codes')).items.find(
      (item) => item.install_code_id === codeIdOf(installs.c),
    )!.install_code_hint as string;
    expect(await found('install-codes', { q: hint.slice(-6).toLowerCase() }, installs)).toEqual(['c']);
    expect(await found('install-codes', { q: codeIdOf(installs.a).slice(3, 11) }, installs)).toEqual(['a']);
    expect(await found('install-codes', { q: codeIdOf(installs.a).slice(0, 11) }, installs)).toEqual(['a']);
    expect(await found('install-codes', { q: codeIdOf(installs.a).slice(7, 15) }, installs)).toEqual([]);
    expect(await found('install-codes', { ip: '203.0.113.0/24' }, installs)).toEqual(['a', 'b']);
    expect(await found('install-codes', { ip: '2001:db8:1200::7' }, installs)).toEqual(['d']);
    expect(await found('install-codes', { machine_id: installs.c.machine.machine_id }, installs)).toEqual(['c']);
    expect(
      await found(
        'install-codes',
        { ssh_fingerprint: installs.b.machine.ssh_fingerprint, ip: '203.0.113.0/24' },
        installs,
      ),
    ).toEqual(['b']);
    expect(
      await found(
        'install-codes',
        { ssh_fingerprint: installs.b.machine.ssh_fingerprint, ip: '198.51.100.0/24' },
        installs,
      ),
    ).toEqual([]);
  });

  it('pages through a search without repeating or skipping a row', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await installed(t, `edge-${i}.example.net`, `192.0.2.${i + 1}`)).activationId);
      t.clock.advance(1);
    }
    await installed(t, 'core.example.net', '192.0.2.100');
    const first = await adminList(t, 'activations', { q: 'edge-', ip: '192.0.2.0/24', limit: 2 });
    const second = await adminList(t, 'activations', {
      q: 'edge-',
      ip: '192.0.2.0/24',
      limit: 2,
      cursor: first.next_cursor!,
    });
    const third = await adminList(t, 'activations', {
      q: 'edge-',
      ip: '192.0.2.0/24',
      limit: 2,
      cursor: second.next_cursor!,
    });
    expect([...first.items, ...second.items, ...third.items].map((a) => a.activation_id)).toEqual(ids.reverse());
    expect(third.next_cursor).toBeNull();
  });

  it.each([
    ['a prefix past /32', '203.0.113.0/33'],
    ['a prefix past /128', '2001:db8::/129'],
    ['an empty prefix', '203.0.113.0/'],
    ['no address', '/24'],
    ['a short address', '203.0.113/24'],
    ['two prefixes', '203.0.113.0/24/8'],
    ['a signed prefix', '203.0.113.0/+24'],
    ['address bits after the prefix', '203.0.113.7/24'],
    ['a zone index', 'fe80::1%eth0'],
    ['an IPv4 network as IPv4-mapped IPv6', '::ffff:203.0.113.0/120'],
    ['a name', 'vpn1.example.net'],
    ['an address with a port', '203.0.113.7:22'],
  ])('ip: %s is 400 validation_failed naming ip, on every list', async (_, ip) => {
    for (const list of ['install-codes', 'activations', 'servers']) {
      const res = await t.request(`/api/v2/admin/${list}?ip=${encodeURIComponent(ip)}`, { headers: auth });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 400,
        body: {
          error: { code: 'validation_failed', message: expect.stringMatching(/^The request is not valid\. ip: /) },
        },
      });
    }
  });

  it('q shorter than 3 characters is 400 validation_failed naming q (a part that short has no trigram to look up)', async () => {
    for (const list of ['install-codes', 'activations', 'servers']) {
      const res = await t.request(`/api/v2/admin/${list}?q=vp`, { headers: auth });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 400,
        body: {
          error: { code: 'validation_failed', message: 'The request is not valid. q: must be at least 3 characters.' },
        },
      });
    }
  });
});
