import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatMessageBody } from '../../src/domain/webhooks/formats/chat-message.js';
import { describeWithBrowser, openBrowser, type BrowserSession } from '../support/browser.js';
import { CHAT_FORMATS } from './chat-receivers.js';
import { renderedMessages } from './chat-renderings.js';

const CONSOLE = new URL('https://console.example.com');
const HOSTILE = 'db fleet <!channel> @everyone <http://evil.example|click> <users/all>';

const approval = JSON.stringify({
  type: 'install_code.approval_requested',
  timestamp: '2026-11-22T10:00:00.000Z',
  data: {
    event_id: 41,
    install_code_id: 'ic_5d2e8f1a3b4c6d70',
    actor: 'installer',
    precheck_id: 'pc_0a1b2c3d4e5f6a7b',
    decided_by: 'operator',
    machine_id: '4c4c4544003957108052b4c04f384833',
    hint: 'SDNS-SD-…-7QK2MX',
    description: HOSTILE,
  },
});
const stale = (i: number) =>
  JSON.stringify({
    type: 'server.went_stale',
    timestamp: '2026-11-22T10:10:01.000Z',
    data: {
      event_id: 100 + i,
      server_id: `srv_${String(i).padStart(16, '0')}`,
      actor: 'service',
      hostname: i === 0 ? HOSTILE : `vpn${i}.example.net`,
      last_seen_at: '2026-11-22T10:00:00.000Z',
    },
  });

/**
 * Each format's message as its platform shows it (a static rendering of the body: chat-renderings.ts),
 * looked at in Chromium: the one event and a digest, the injection attempts shown as text, never as a
 * mention or a link. With SLOWDNS_SCREENS_DIR set, screenshots are saved there (`npm run screens`).
 */
describeWithBrowser('webhooks: chat messages as a person sees them', () => {
  let browser: BrowserSession;
  beforeAll(async () => {
    browser = await openBrowser('http://127.0.0.1:9');
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, payloads] of [
    ['one approval request', [approval]],
    ['a digest of 25 events', [approval, ...Array.from({ length: 24 }, (_, i) => stale(i))]],
  ] as const) {
    it(`${name}: every format reads as what happened, with no mention and no foreign link`, async () => {
      const bodies = CHAT_FORMATS.map((format) => ({
        format,
        body: JSON.parse(chatMessageBody(format, [...payloads], CONSOLE)),
      }));
      await browser.page.setContent(renderedMessages(bodies));
      expect(await browser.page.locator('.mention').count()).toBe(0);
      const hrefs = await browser.page.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      for (const href of hrefs) expect(href!.startsWith('https://console.example.com/admin')).toBe(true);
      const text = (await browser.page.locator('body').textContent()) ?? '';
      expect(text).toContain('<!channel>');
      if (payloads.length === 1) expect(text.match(/waits for an operator's approval/g)).toHaveLength(4);
      else
        expect(
          text.match(/25 SlowDNS events \(servers stopped checking in: 24; machines waiting for approval: 1\)/g),
        ).toHaveLength(4);
      const dir = process.env.SLOWDNS_SCREENS_DIR;
      if (dir) {
        await mkdir(dir, { recursive: true });
        await browser.page.screenshot({
          path: join(dir, `chat-${payloads.length === 1 ? 'one' : 'digest'}.png`),
          fullPage: true,
        });
      }
    });
  }
});
