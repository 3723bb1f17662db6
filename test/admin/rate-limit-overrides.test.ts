import { describe, expect, it } from 'vitest';
import { rateLimitOverrides } from '../../src/db/schema.js';
import { eventTrail } from '../support/event-trail.js';
import { useTestApp } from '../support/test-app.js';
import { OVERRIDES, overrideRequest, removeOverride, setOverride } from '../rate-limits/override-support.js';
import { ADMIN_TOKEN, adminList, allPages } from './admin-requests.js';

const MACHINE_ID = '4c4c4544003957108052b4c04f384833';
const valid = {
  subject: 'ip',
  value: '203.0.113.7',
  limit_name: 'issue-ip-hour',
  limit: 20,
  expires_at: '2026-12-01T00:00:00+00:00',
  reason: 'Office NAT (ticket 1234)',
};

/** Each refused body: what differs from `valid`, and the field the message must name. */
const refused: [string, Record<string, unknown>, string][] = [
  ['a malformed CIDR', { subject: 'cidr', value: '203.0.113/24' }, 'value'],
  ['a CIDR with two prefixes', { subject: 'cidr', value: '203.0.113.0/24/8' }, 'value'],
  ['a CIDR without a prefix', { subject: 'cidr', value: '203.0.113.0' }, 'value'],
  ['a prefix beyond the address', { subject: 'cidr', value: '203.0.113.0/33' }, 'value'],
  ['an IPv4 CIDR wider than /16', { subject: 'cidr', value: '10.0.0.0/8' }, 'value'],
  ['an IPv6 CIDR wider than /32', { subject: 'cidr', value: '2001:db8::/16' }, 'value'],
  [
    'an IPv6 CIDR narrower than the /64 clients are counted by',
    { subject: 'cidr', value: '2001:db8:1:2::/96' },
    'value',
  ],
  ['a CIDR with host bits set', { subject: 'cidr', value: '203.0.113.7/24' }, 'value'],
  ['an IPv4 network written as IPv4-mapped IPv6', { subject: 'cidr', value: '::ffff:203.0.113.0/120' }, 'value'],
  ['a network as an ip', { value: '203.0.113.0/24' }, 'value'],
  ['a hostname as an ip', { value: 'vpn1.example.net' }, 'value'],
  ['an address with a port', { value: '203.0.113.7:8080' }, 'value'],
  ['an address as a machine', { subject: 'machine', limit_name: 'activate-machine-day' }, 'value'],
  [
    'an upper-case machine id',
    { subject: 'machine', value: MACHINE_ID.toUpperCase(), limit_name: 'activate-machine-day' },
    'value',
  ],
  ['an unknown limit', { limit_name: 'issue-ip-minute' }, 'limit_name'],
  ['a limit not counted per IP or machine', { limit_name: 'issue-session-hour' }, 'limit_name'],
  ['a machine override of a per-IP limit', { subject: 'machine', value: MACHINE_ID }, 'limit_name'],
  ['an ip override of a per-machine limit', { limit_name: 'activate-machine-day' }, 'limit_name'],
  [
    'a CIDR override of a per-machine limit',
    { subject: 'cidr', value: '203.0.113.0/24', limit_name: 'precheck-machine-day' },
    'limit_name',
  ],
  ['a zero limit', { limit: 0 }, 'limit'],
  ['a negative limit', { limit: -5 }, 'limit'],
  ['a fractional limit', { limit: 2.5 }, 'limit'],
  ['a limit above 10000', { limit: 10_001 }, 'limit'],
  ['an absurd limit', { limit: 1e12 }, 'limit'],
  ['a limit as text', { limit: '20' }, 'limit'],
  ['no expires_at', { expires_at: undefined }, 'expires_at'],
  ['an expires_at in the past', { expires_at: '2026-11-22T09:59:59+00:00' }, 'expires_at'],
  ['an expires_at of now', { expires_at: '2026-11-22T10:00:00+00:00' }, 'expires_at'],
  ['an expires_at more than 365 days ahead', { expires_at: '2027-11-22T10:00:01+00:00' }, 'expires_at'],
  ['an expires_at that is not a time', { expires_at: 'tomorrow' }, 'expires_at'],
  ['a NUL in the value', { value: '203.0.113.7\u0000' }, 'value'],
  ['a NUL in the reason', { reason: 'Office\u0000NAT' }, 'reason'],
  ['a newline in the reason', { reason: 'Office NAT\nticket 1234' }, 'reason'],
  ['a C1 control in the reason', { reason: 'Office\u0085NAT' }, 'reason'],
  ['no reason', { reason: undefined }, 'reason'],
  ['an empty reason', { reason: '' }, 'reason'],
  ['a reason over 200 characters', { reason: 'x'.repeat(201) }, 'reason'],
  ['an unknown subject', { subject: 'session' }, 'subject'],
];

describe('the admin API of rate-limit overrides', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it('creates an override: 201 with who set it and why, stored, and recorded as an event naming the operator and the reason', async () => {
    const trail = eventTrail(t);
    const res = await overrideRequest(t, { ...valid, value: '::ffff:203.0.113.7' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      rate_limit_override_id: expect.stringMatching(/^rlo_[0-9a-f]{16}$/),
      subject: 'ip',
      value: '203.0.113.7',
      applies_to: '203.0.113.7',
      limit_name: 'issue-ip-hour',
      limit: 20,
      default_limit: 3,
      status: 'active',
      expires_at: '2026-12-01T00:00:00+00:00',
      reason: 'Office NAT (ticket 1234)',
      created_at: '2026-11-22T10:00:00+00:00',
      created_by: 'root',
      removed_at: null,
      removed_by: null,
      removal_reason: null,
    });
    expect(await t.database.db.select().from(rateLimitOverrides)).toEqual([
      expect.objectContaining({
        id: data.rate_limit_override_id,
        subjectKey: '203.0.113.7',
        quota: 20,
        createdBy: 'root',
      }),
    ]);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'rate_limit_override.created',
        actor: 'operator',
        requestId: expect.any(String),
        data: {
          rate_limit_override_id: data.rate_limit_override_id,
          subject: 'ip',
          value: '203.0.113.7',
          limit_name: 'issue-ip-hour',
          limit: 20,
          expires_at: '2026-12-01T00:00:00+00:00',
          operator: 'root',
          reason: 'Office NAT (ticket 1234)',
        },
      }),
    ]);
  });

  it.each(refused)('%s: 400 validation_failed naming the field, nothing stored', async (_case, change, field) => {
    const trail = eventTrail(t);
    const res = await t.request(OVERRIDES, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ ...valid, ...change }),
    });
    const body = await res.json();
    expect({ status: res.status, code: body.error?.code }).toEqual({ status: 400, code: 'validation_failed' });
    expect(body.error.message).toContain(`${field}:`);
    expect(await t.database.db.select().from(rateLimitOverrides)).toEqual([]);
    expect(await trail.take()).toEqual([]);
  });

  it('says what is wrong in words an operator can act on', async () => {
    const message = async (change: Record<string, unknown>) =>
      (await (await overrideRequest(t, { ...valid, ...change })).json()).error.message as string;
    expect(await message({ subject: 'cidr', value: '203.0.113.7/24' })).toContain(
      'write the network as 203.0.113.0/24',
    );
    expect(await message({ subject: 'cidr', value: '10.0.0.0/8' })).toContain('never covers more than a /16');
    expect(await message({ subject: 'machine', value: MACHINE_ID })).toContain(
      'issue-ip-hour is counted per ip, not per machine: a machine override can set precheck-machine-day, activate-machine-day',
    );
    expect(await message({ limit: 10_001 })).toContain(
      'must be at most 10000: an override never makes a limit unlimited',
    );
    expect(await message({ expires_at: '2027-11-23T00:00:00+00:00' })).toContain(
      'expires_at: must be at most 365 days ahead',
    );
    expect(await message({ expires_at: undefined })).toContain('expires_at: is required');
    expect(await message({ reason: undefined })).toContain('reason: is required');
  });

  it('a new override for the same limit and target replaces the one in place, and no other', async () => {
    const first = await setOverride(t, { subject: 'ip', value: '203.0.113.7', limit_name: 'issue-ip-hour', limit: 20 });
    t.clock.advance(1);
    const other = await setOverride(t, { subject: 'ip', value: '203.0.113.7', limit_name: 'issue-ip-day', limit: 50 });
    t.clock.advance(1);
    const trail = eventTrail(t);
    await trail.take();
    const second = await setOverride(t, { subject: 'ip', value: '203.0.113.7', limit_name: 'issue-ip-hour', limit: 8 });
    const items = await allPages(t, 'rate-limit-overrides', {});
    expect(items.map((i) => [i.rate_limit_override_id, i.status, i.removal_reason])).toEqual([
      [second.rate_limit_override_id, 'active', null],
      [other.rate_limit_override_id, 'active', null],
      [first.rate_limit_override_id, 'removed', `Replaced by ${second.rate_limit_override_id}.`],
    ]);
    expect(
      (await trail.take()).map((e) => [
        e.type,
        (e.data as Record<string, unknown>).rate_limit_override_id,
        (e.data as Record<string, unknown>).operator,
      ]),
    ).toEqual([
      ['rate_limit_override.removed', first.rate_limit_override_id, 'root'],
      ['rate_limit_override.created', second.rate_limit_override_id, 'root'],
    ]);
  });

  it('concurrent overrides of one target leave exactly one in place', async () => {
    const answers = await Promise.all([5, 6, 7, 8, 9].map((limit) => overrideRequest(t, { ...valid, limit })));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await adminList(t, 'rate-limit-overrides', { status: 'active' })).items).toHaveLength(1);
    expect((await adminList(t, 'rate-limit-overrides', { status: 'removed' })).items).toHaveLength(4);
  });

  it('removes an override with a reason: 200, listed as removed with who and why, an event', async () => {
    const override = await setOverride(t, {
      subject: 'cidr',
      value: '203.0.113.0/24',
      limit_name: 'issue-ip-hour',
      limit: 20,
    });
    const trail = eventTrail(t);
    await trail.take();
    t.clock.advance(60);
    const res = await removeOverride(t, override.rate_limit_override_id, 'Workshop over');
    expect(res.status).toBe(200);
    const removed = {
      ...override,
      status: 'removed',
      removed_at: '2026-11-22T10:01:00+00:00',
      removed_by: 'root',
      removal_reason: 'Workshop over',
    };
    expect((await res.json()).data).toEqual(removed);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'rate_limit_override.removed',
        actor: 'operator',
        data: expect.objectContaining({
          rate_limit_override_id: override.rate_limit_override_id,
          operator: 'root',
          reason: 'Workshop over',
        }),
      }),
    ]);
  });

  it('a second removal of an override answers the first and changes nothing', async () => {
    const override = await setOverride(t, {
      subject: 'cidr',
      value: '203.0.113.0/24',
      limit_name: 'issue-ip-hour',
      limit: 20,
    });
    t.clock.advance(60);
    const removed = (await (await removeOverride(t, override.rate_limit_override_id, 'Workshop over')).json()).data;
    const trail = eventTrail(t);
    await trail.take();
    t.clock.advance(60);
    const again = await removeOverride(t, override.rate_limit_override_id);
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual(removed);
    expect(await trail.take()).toEqual([]);
  });

  it('refuses a control character in the reason and removes nothing', async () => {
    const override = await setOverride(t, {
      subject: 'ip',
      value: '203.0.113.7',
      limit_name: 'issue-ip-hour',
      limit: 20,
    });
    const refusedReason = await removeOverride(t, override.rate_limit_override_id, 'over\u0000');
    expect(refusedReason.status).toBe(400);
    expect((await refusedReason.json()).error).toEqual({
      code: 'validation_failed',
      message: expect.stringContaining('reason:'),
    });
    expect((await adminList(t, 'rate-limit-overrides', { status: 'active' })).items).toHaveLength(1);
  });

  it('removes without a body: the reason is optional', async () => {
    const override = await setOverride(t, {
      subject: 'ip',
      value: '203.0.113.7',
      limit_name: 'issue-ip-hour',
      limit: 20,
    });
    const res = await removeOverride(t, override.rate_limit_override_id);
    expect((await res.json()).data).toMatchObject({ status: 'removed', removed_by: 'root', removal_reason: null });
  });

  it('refuses to remove an unknown id (404) and a malformed one (400)', async () => {
    const unknown = await removeOverride(t, 'rlo_0000000000000000');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('rate_limit_override_not_found');
    const malformed = await removeOverride(t, 'rlo_nothex');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('validation_failed');
  });

  it("lists newest first with the admin lists' envelope and cursor, marks expired ones, filters by status and limit name", async () => {
    const set = [];
    for (const [value, expires] of [
      ['203.0.113.1', '2026-11-22T10:30:00+00:00'],
      ['203.0.113.2', '2026-12-01T00:00:00+00:00'],
      ['203.0.113.3', '2026-12-01T00:00:00+00:00'],
    ] as const) {
      set.push(
        await setOverride(t, { subject: 'ip', value, limit_name: 'issue-ip-hour', limit: 10, expires_at: expires }),
      );
      t.clock.advance(1);
    }
    const machine = await setOverride(t, {
      subject: 'machine',
      value: MACHINE_ID,
      limit_name: 'activate-machine-day',
      limit: 9,
    });
    t.clock.set('2026-11-22T11:00:00Z');

    const first = await adminList(t, 'rate-limit-overrides', { limit: 2 });
    expect(first.items.map((i) => i.rate_limit_override_id)).toEqual([
      machine.rate_limit_override_id,
      set[2]!.rate_limit_override_id,
    ]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await adminList(t, 'rate-limit-overrides', { limit: 2, cursor: first.next_cursor! });
    expect(second.items.map((i) => [i.rate_limit_override_id, i.status])).toEqual([
      [set[1]!.rate_limit_override_id, 'active'],
      [set[0]!.rate_limit_override_id, 'expired'],
    ]);
    expect(second.next_cursor).toBeNull();

    expect((await adminList(t, 'rate-limit-overrides', { status: 'expired' })).items.map((i) => i.value)).toEqual([
      '203.0.113.1',
    ]);
    expect(
      (await adminList(t, 'rate-limit-overrides', { status: 'active', limit_name: 'issue-ip-hour' })).items.map(
        (i) => i.value,
      ),
    ).toEqual(['203.0.113.3', '203.0.113.2']);
    const bad = await t.request(`${OVERRIDES}?status=gone`, { headers: auth });
    expect(bad.status).toBe(400);
  });

  it('the usage route takes exactly one of ip and machine, each well-formed', async () => {
    for (const query of [
      '',
      '?ip=203.0.113.7&machine=4c4c4544003957108052b4c04f384833',
      '?ip=203.0.113.0/24',
      '?ip=203.0.113.7%00',
      '?machine=nothex',
    ]) {
      const res = await t.request(`/api/v2/admin/rate-limit-usage${query}`, { headers: auth });
      expect({ query, status: res.status, code: (await res.json()).error?.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
  });
});
