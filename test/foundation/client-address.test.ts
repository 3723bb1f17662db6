import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyedHashes } from '../../src/domain/tokens/keyed-hashes.js';
import {
  normaliseAddress,
  parseAddress,
  parseTrustProxy,
  rateLimitAddressKey,
} from '../../src/domain/client-addresses.js';
import { resolveClientAddress as resolveClient } from '../../src/http/client-address.js';
import { bucketRows, expectRateLimited, issueFrom } from '../rate-limits/rate-limit-support.js';
import { browserAt } from '../support/install-flow.js';
import { buildTestApp, createTestApp, type TestApp } from '../support/test-app.js';

const resolveClientAddress = (...args: Parameters<typeof resolveClient>) => resolveClient(...args).text;
const hops = (n: number) => parseTrustProxy(String(n));
const cidrs = (list: string) => parseTrustProxy(list);

describe('resolveClientAddress with a hop count', () => {
  it('takes the entry that many hops from the right, the socket being the last hop', () => {
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, 1.2.3.4', hops(1))).toBe('1.2.3.4');
    expect(resolveClientAddress('10.0.0.2', '6.6.6.6, 1.2.3.4, 10.0.0.1', hops(2))).toBe('1.2.3.4');
  });

  it('keeps the position of an entry with a port and drops the port', () => {
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, 1.2.3.4:5678', hops(1))).toBe('1.2.3.4');
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, [2001:DB8::1]:443', hops(1))).toBe('2001:db8::1');
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6,[2001:db8::2]', hops(1))).toBe('2001:db8::2');
  });

  it('an entry that is not an address counts as a hop, and where it would be the client the nearest trusted hop is taken instead', () => {
    expect(resolveClientAddress('10.0.0.2', '6.6.6.6, unknown, 10.0.0.1', hops(2))).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, unknown', hops(1))).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, ', hops(1))).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.2', '6.6.6.6, 1.2.3.4, unknown', hops(2))).toBe('1.2.3.4');
  });

  it('with fewer entries than hops takes the leftmost, which a trusted hop wrote', () => {
    expect(resolveClientAddress('10.0.0.2', '1.2.3.4', hops(3))).toBe('1.2.3.4');
    expect(resolveClientAddress('10.0.0.2', 'unknown', hops(3))).toBe('10.0.0.2');
  });

  it('without X-Forwarded-For, or without TRUST_PROXY, answers the socket peer', () => {
    expect(resolveClientAddress('10.0.0.1', undefined, hops(1))).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', '1.2.3.4', parseTrustProxy(undefined))).toBe('10.0.0.1');
  });
});

describe('resolveClientAddress with trusted proxy CIDRs', () => {
  const trust = cidrs('10.0.0.0/8, 2001:db8:ffff::/48');

  it('skips trusted IPv4 and IPv6 proxies from the right and takes the first untrusted address', () => {
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, 1.2.3.4', trust)).toBe('1.2.3.4');
    expect(resolveClientAddress('2001:db8:ffff::1', '6.6.6.6, 1.2.3.4', trust)).toBe('1.2.3.4');
    expect(
      resolveClientAddress('::ffff:10.0.0.3', '6.6.6.6, 1.2.3.4, 10.9.9.9:80, [2001:db8:ffff::2]:8080', trust),
    ).toBe('1.2.3.4');
  });

  it('an untrusted socket peer is the client, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress('203.0.113.5', '1.2.3.4', trust)).toBe('203.0.113.5');
    expect(resolveClientAddress('2001:db8:1::5', '1.2.3.4', trust)).toBe('2001:db8:1::5');
  });

  it('an entry that is not an address stops the walk and gives the trusted proxy right of it', () => {
    expect(resolveClientAddress('10.0.0.2', '6.6.6.6, unknown, 10.0.0.1', trust)).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', '6.6.6.6, garbage', trust)).toBe('10.0.0.1');
  });

  it('a chain of trusted proxies only answers the leftmost', () => {
    expect(resolveClientAddress('10.0.0.1', '10.0.0.3, 10.0.0.2', trust)).toBe('10.0.0.3');
  });
});

describe('addresses and rate-limit keys', () => {
  it('normalises ::ffff: IPv4-mapped addresses and lower-cases IPv6', () => {
    expect(normaliseAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(normaliseAddress('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(normaliseAddress('2001:DB8::A')).toBe('2001:db8::a');
    expect(resolveClientAddress('::ffff:203.0.113.7', undefined, hops(1))).toBe('203.0.113.7');
  });

  it('writes every spelling of one address the same way (IPv4 written as IPv6, RFC 5952 for IPv6, ports dropped)', () => {
    for (const spelling of [
      '5.6.7.8',
      '::ffff:506:708',
      '0:0:0:0:0:ffff:5.6.7.8',
      '::FFFF:0506:0708',
      '[::ffff:5.6.7.8]:443',
      '5.6.7.8:8080',
      ' 5.6.7.8 ',
    ]) {
      expect(normaliseAddress(spelling), spelling).toBe('5.6.7.8');
    }
    for (const spelling of [
      '2001:db8::7',
      '2001:DB8:0::7',
      '2001:0db8:0000:0000:0000:0000:0000:0007',
      '[2001:db8::7]:8080',
    ]) {
      expect(normaliseAddress(spelling), spelling).toBe('2001:db8::7');
    }
    expect(normaliseAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
  });

  it('drops an IPv6 zone, including ones ipaddr.js would refuse', () => {
    for (const spelling of ['fe80::1%eth0', 'fe80::1%eth-0', 'FE80::1%a.b', '[fe80::1%a:b]:443']) {
      expect(normaliseAddress(spelling), spelling).toBe('fe80::1');
    }
    expect(rateLimitAddressKey(normaliseAddress('fe80::1%eth-0'))).toBe('fe80::/64');
  });

  it('leaves what is not an address as written: no lenient IPv4 forms', () => {
    expect(normaliseAddress('unknown')).toBe('unknown');
    expect(normaliseAddress('127.1')).toBe('127.1');
    expect(normaliseAddress('0x7f.0.0.1')).toBe('0x7f.0.0.1');
    expect(normaliseAddress('127.1')).not.toBe(normaliseAddress('127.0.0.1'));
    expect(normaliseAddress('::ffff:506:708')).toBe(normaliseAddress('5.6.7.8'));
    expect(normaliseAddress('2001:DB8:0::7')).toBe(normaliseAddress('2001:db8::7'));
  });

  it('reads an IPv4-compatible address (::a.b.c.d, deprecated) as the IPv6 address it is, not as IPv4', () => {
    for (const spelling of ['::1.2.3.4', '0:0:0:0:0:0:1.2.3.4', '::102:304', '[::1.2.3.4]:443']) {
      expect(parseAddress(spelling), spelling).toEqual({ text: '::102:304', family: 6 });
    }
    expect(normaliseAddress('::1.2.3.4')).not.toBe(normaliseAddress('1.2.3.4'));
    expect(normaliseAddress('::ffff:1.2.3.4')).toBe('1.2.3.4');
  });

  it('keys an IPv6 address by its /64 and an IPv4 address as is', () => {
    expect(rateLimitAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitAddressKey('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddressKey('2001:db8::1')).toBe('2001:db8::/64');
    expect(rateLimitAddressKey('2001:db8:0:0:ffff::1')).toBe(rateLimitAddressKey('2001:db8::1'));
    expect(rateLimitAddressKey('2001:db8:1:3::1')).not.toBe(rateLimitAddressKey('2001:db8:1:2::1'));
  });
});

describe('behind one proxy, rate limits count the resolved address', () => {
  let t: TestApp;
  let behindProxy: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    behindProxy = buildTestApp(t.database, t.keys, { TRUST_PROXY: '1' }, t.clock);
  });
  beforeEach(() => t.reset());
  afterAll(() => t.close());

  it("forged entries left of the proxy's (with a port) give no fresh budget: the 4th issue from 1.2.3.4 is 429", async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const issue = async (i: number) => {
      const headers = { 'x-forwarded-for': `6.6.6.${i}, 1.2.3.4:${5000 + i}` };
      const browser = await browserAt(behindProxy, '10.0.0.1', `ua-${i}`);
      return issueFrom(behindProxy, browser, { headers });
    };
    for (let i = 1; i <= 3; i++) expect((await issue(i)).status).toBe(201);
    await expectRateLimited(await issue(4), 'issue-ip-hour', 3600);
    const ipHour = (await bucketRows(t)).filter((r) => r.limitName === 'issue-ip-hour');
    expect(ipHour).toEqual([
      expect.objectContaining({
        subjectHash: keyedHashes(t.config.keyEncryptionKey).rateLimitSubject('issue-ip-hour', '1.2.3.4'),
        count: 3,
      }),
    ]);
  });

  it('an X-Forwarded-For address with a zone is that address, not a 500', async () => {
    const browser = await browserAt(behindProxy, '10.0.0.1', 'ua-zone');
    const res = await issueFrom(behindProxy, browser, { headers: { 'x-forwarded-for': 'fe80::7%eth-0' } });
    expect(res.status).toBe(201);
    const ipHour = (await bucketRows(t)).filter((r) => r.limitName === 'issue-ip-hour');
    expect(ipHour).toEqual([
      expect.objectContaining({
        subjectHash: keyedHashes(t.config.keyEncryptionKey).rateLimitSubject('issue-ip-hour', 'fe80::/64'),
        count: 1,
      }),
    ]);
  });

  it('other spellings of one IPv4 client share its budget: 5.6.7.8, ::ffff:506:708, 0:0:0:0:0:ffff:5.6.7.8, then 429', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const spellings = ['5.6.7.8', '::ffff:506:708', '0:0:0:0:0:ffff:5.6.7.8', '[::FFFF:5.6.7.8]:9000'];
    const issue = async (i: number) => {
      const browser = await browserAt(behindProxy, '10.0.0.1', `ua-spelling-${i}`);
      return issueFrom(behindProxy, browser, { headers: { 'x-forwarded-for': spellings[i]! } });
    };
    for (let i = 0; i < 3; i++) expect((await issue(i)).status).toBe(201);
    await expectRateLimited(await issue(3), 'issue-ip-hour', 3600);
    const ipHour = (await bucketRows(t)).filter((r) => r.limitName === 'issue-ip-hour');
    expect(ipHour).toEqual([
      expect.objectContaining({
        subjectHash: keyedHashes(t.config.keyEncryptionKey).rateLimitSubject('issue-ip-hour', '5.6.7.8'),
        count: 3,
      }),
    ]);
  });
});
