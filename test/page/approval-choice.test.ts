import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/test-app.js';

/** The "Ask me before a machine can use this code" checkbox of /slowdns, as the page is served. */
async function checkbox(t: TestApp): Promise<string | undefined> {
  const html = await (await t.request('/slowdns')).text();
  return /<input type="checkbox" id="require-approval"[^>]*>/.exec(html)?.[0];
}

describe('the /slowdns page under each APPROVAL_POLICY', () => {
  describe('optional (the default)', () => {
    const t = useTestApp();
    it('offers the checkbox, unticked', async () => {
      const box = await checkbox(t);
      expect(box).toBeDefined();
      expect(box).not.toContain('checked');
      expect(box).not.toContain('disabled');
      expect(await (await t.request('/slowdns')).text()).toContain(
        '<label for="require-approval">Ask me before a machine can use this code</label>',
      );
    });
  });

  describe('required', () => {
    const t = useTestApp({ APPROVAL_POLICY: 'required' });
    it('shows it ticked, and fixed: the service asks about every code', async () => {
      const box = await checkbox(t);
      expect(box).toContain(' checked');
      expect(box).toContain(' disabled');
      expect(await (await t.request('/slowdns')).text()).toContain('This service asks you about every machine');
    });
  });

  describe('off', () => {
    const t = useTestApp({ APPROVAL_POLICY: 'off' });
    it('leaves it out', async () => {
      expect(await checkbox(t)).toBeUndefined();
      // The words stay in the catalog the page's scripts read; the page itself never says them.
      const page = (await (await t.request('/slowdns')).text()).replace(
        /<script type="application\/json"[\s\S]*?<\/script>/,
        '',
      );
      expect(page).not.toContain('Ask me before');
    });
  });
});
