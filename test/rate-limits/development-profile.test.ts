import { describe, expect, it } from 'vitest';
import { browserAt } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { expectRateLimited, issueFrom, parseRateLimit } from './rate-limit-support.js';

describe('RATE_LIMIT_PROFILE=development: every quota times 100, for trying the service locally', () => {
  const t = useTestApp({ RATE_LIMIT_PROFILE: 'development' });

  it('one browser gets far more than 3 codes an hour, and the headers and the 429 state the scaled quotas', async () => {
    t.clock.set('2026-11-22T10:30:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    for (let i = 1; i <= 200; i++) {
      const res = await issueFrom(t, browser);
      if (res.status !== 201) throw new Error(`issue ${i} answered ${res.status}`);
      if (i === 1) {
        expect(res.headers.get('ratelimit-policy')).toBe(
          '"issue-ip-hour";q=300;w=3600, "issue-ip-day";q=1000;w=86400, "issue-session-hour";q=200;w=3600, "issue-fingerprint-day";q=600;w=86400',
        );
      }
    }
    const over = await issueFrom(t, browser);
    expect(parseRateLimit(over.headers.get('ratelimit'))['issue-ip-hour']).toEqual({ r: 100, t: 1800 });
    await expectRateLimited(
      over,
      'issue-session-hour',
      1800,
      'Limit issue-session-hour reached: 200 install code requests per browser session per UTC hour.',
    );
  });

  it('the document still states the default quotas', () => {
    const issue = (t.document.paths as Record<string, { post: { description: string } }>)['/api/v2/slowdns/code/issue']!
      .post.description;
    expect(issue).toContain('| `issue-ip-hour` | 3 | UTC hour (resets at :00) |');
    expect(issue).not.toContain('| 300 |');
  });
});
