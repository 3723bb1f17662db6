import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../src/domain/events/event-trail.js';
import type { ChatFormat } from '../../src/domain/webhooks/formats/chat-message.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { CHAT_FORMATS, platformExamples, platformSchema } from './chat-receivers.js';
import { startReceiver } from './receiver.js';
import { webhookRequest } from './webhook-requests.js';
import { testWorker, writeEvent } from './webhook-worker.js';

const CONSOLE = 'https://console.example.com';
const OPT_IN = { ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', CONSOLE_PUBLIC_URL: CONSOLE };

/** What someone who can name a code, a server or a reason might write to reach a whole channel. */
const INJECTION = '<!channel> @everyone <http://x|y> [click](http://evil.example) <users/all> <at>all</at> *bold*';

/** Every free-text field an event's data may carry, each an injection attempt. */
const HOSTILE = {
  description: INJECTION,
  reason: INJECTION,
  hostname: INJECTION,
  operator: INJECTION,
  name: INJECTION,
  machine_id: INJECTION,
  hint: INJECTION,
  url_host: INJECTION,
  public_ip: INJECTION,
  scope: INJECTION,
  tags: { team: INJECTION },
  webhook_endpoint_id: 'wh_0000000000000000',
  decided_by: 'operator',
  uses: 5,
  uses_spent: 1,
  expires_at: '2026-11-23T10:00:00.000Z',
  last_seen_at: '2026-11-22T09:50:00.000Z',
};

/** The texts of a chat body a person reads, by format; with the links the body carries. */
function readable(format: ChatFormat, body: any): { texts: string[]; links: string[] } {
  if (format === 'slack') {
    const texts = [
      body.text,
      ...body.blocks.flatMap((b: any) => (b.text ? [b.text.text] : b.elements.map((e: any) => e.text))),
    ];
    return { texts, links: texts.flatMap((t) => [...t.matchAll(/<([^>|]*)[|>]/g)].map((m) => m[1]!)) };
  }
  if (format === 'discord') {
    const embed = body.embeds[0];
    const texts = [body.content, embed.title, embed.description ?? ''];
    return {
      texts,
      links: [embed.url, ...texts.flatMap((t) => [...t.matchAll(/(?<!\\)\]\(([^)]*)\)/g)].map((m) => m[1]!))],
    };
  }
  if (format === 'teams') {
    const card = body.attachments[0].content;
    const texts = card.body.flatMap((e: any) =>
      e.type === 'TextBlock' ? [e.text] : e.inlines.map((r: any) => r.text),
    );
    return { texts, links: card.actions.map((a: any) => a.url) };
  }
  return { texts: [body.text], links: [...body.text.matchAll(/<([^>|]*)[|>]/g)].map((m) => m[1]!) };
}

describe('webhooks: chat formats (DESIGN §28)', () => {
  const t = useTestApp(OPT_IN);
  const receivers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function chatEndpoint(format: ChatFormat, answer?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(answer);
    receivers.push(r);
    const res = await webhookRequest(t, 'webhooks', 'POST', { url: r.url, events: ['*'], format });
    expect(res.status).toBe(201);
    return { receiver: r, created: (await res.json()).data };
  }

  it("each schema accepts its platform's own example payloads and refuses what the platform does not take", () => {
    for (const format of CHAT_FORMATS) {
      const validate = platformSchema(format);
      const { examples, refused } = platformExamples(format);
      for (const example of examples)
        expect(validate(example), `${format}: ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const example of refused) expect(validate(example)).toBe(false);
    }
  });

  it('every event type arrives in every format as the platform documents it, linking under CONSOLE_PUBLIC_URL, every injection inert', async () => {
    const endpoints = await Promise.all(
      CHAT_FORMATS.map(async (format) => ({ format, ...(await chatEndpoint(format)) })),
    );
    const { worker } = testWorker(t);
    await worker.runOnce(); // the endpoints' own creation events: for the others
    t.clock.advance(61);
    for (const endpoint of endpoints) endpoint.receiver.received.splice(0);
    const types: EventType[] = [...EVENT_TYPES];
    for (const type of types) {
      await writeEvent(t, {
        type,
        serverId: 'srv_0123456789abcdef',
        installCodeId: 'ic_0123456789abcdef',
        activationId: 'act_0123456789abcdef',
        data: HOSTILE,
      });
      await worker.runOnce();
      t.clock.advance(61);
    }
    // And the test message each endpoint can be sent.
    for (const { created } of endpoints)
      expect((await webhookRequest(t, `webhooks/${created.webhook_id}/test`, 'POST')).status).toBe(202);
    await worker.runOnce();
    for (const { format, receiver } of endpoints) {
      const validate = platformSchema(format);
      expect(receiver.received, format).toHaveLength(types.length + 1);
      expect(JSON.parse(receiver.received.at(-1)!.body)).toBeDefined();
      for (const message of receiver.received) {
        expect(message.headers['content-type']).toBe('application/json');
        expect(message.headers['webhook-signature']).toBeUndefined();
        const body = JSON.parse(message.body);
        expect(validate(body), `${format}: ${JSON.stringify(validate.errors)}`).toBe(true);
        const { texts, links } = readable(format, body);
        for (const link of links) expect(link.startsWith(`${CONSOLE}/admin`), `${format} link ${link}`).toBe(true);
        const said = texts.join('\n');
        if (format === 'slack') {
          expect(said).not.toMatch(/<!channel>|<http:\/\/x\|y>|<users\/all>/);
          expect(said.replace(/<https:\/\/console\.example\.com\/[^>]*>/g, '')).not.toContain('<');
        }
        if (format === 'discord') {
          expect(body.allowed_mentions).toEqual({ parse: [] });
          expect(said).not.toContain('@everyone');
          expect(said.replace(/\]\(https:\/\/console\.example\.com\/[^)]*\)/g, '')).not.toMatch(/(?<!\\)[[<]/);
        }
        if (format === 'teams') {
          const card = body.attachments[0].content;
          expect(card.body.filter((e: any) => e.type === 'TextBlock').map((e: any) => e.text)).toEqual(['SlowDNS']);
          expect(card.msteams).toBeUndefined();
        }
        if (format === 'google_chat') {
          expect(said).not.toMatch(/<users\/all>|<!channel>|<http:\/\/x\|y>/);
          expect(said.replace(/<https:\/\/console\.example\.com\/[^>]*>/g, '')).not.toContain('<');
        }
      }
    }
    // A person reads what happened: one approval request, for example, in Slack's words.
    const slack = endpoints.find((e) => e.format === 'slack')!.receiver.received;
    const approval = JSON.parse(slack[EVENT_TYPES.indexOf('install_code.approval_requested')]!.body);
    expect(approval.text).toContain("waits for an operator's approval");
    expect(approval.text).toContain('&lt;!channel&gt;');
  }, 180_000);

  it('a chat endpoint has no secret, shows its URL once, and refuses rotate-secret with 409 webhook_endpoint_unsigned', async () => {
    const { created, receiver } = await chatEndpoint('slack');
    expect(created).toMatchObject({ format: 'slack', secret: null, url: receiver.url });
    const shown = await (await webhookRequest(t, `webhooks/${created.webhook_id}`, 'GET')).json();
    expect(shown.data).toMatchObject({ url: null, url_host: `127.0.0.1:${receiver.port}`, format: 'slack' });
    const rotated = await webhookRequest(t, `webhooks/${created.webhook_id}/rotate-secret`, 'POST');
    expect(rotated.status).toBe(409);
    expect((await rotated.json()).error.code).toBe('webhook_endpoint_unsigned');
  });

  it('at most one message per endpoint per minute: what comes meanwhile arrives as one digest', async () => {
    const { receiver } = await chatEndpoint('discord');
    const { worker } = testWorker(t);
    await writeEvent(t, { data: { hostname: 'a.example.net', cause: 'revoked' } });
    await worker.runOnce();
    expect(receiver.received).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      await writeEvent(t, { data: { hostname: `b${i}.example.net`, cause: 'revoked' } });
      t.clock.advance(10);
      await worker.runOnce();
    }
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(11);
    await worker.runOnce();
    await worker.runOnce();
    expect(receiver.received).toHaveLength(2);
    // Discord's markdown escaped, parentheses included: it shows "5 SlowDNS events (servers revoked: 5)."
    expect(JSON.parse(receiver.received[1]!.body).content).toBe('5 SlowDNS events \\(servers revoked: 5\\).');
    expect(JSON.parse(receiver.received[1]!.body).embeds[0].description.split('\n')).toHaveLength(5);
  });

  it('a 500 is retried as §15 says, no sooner than the next minute, then delivered', async () => {
    const { receiver, created } = await chatEndpoint('google_chat', (n) => (n === 0 ? 500 : 200));
    const { worker, outcomes } = testWorker(t);
    await writeEvent(t);
    await worker.runOnce();
    t.clock.advance(30);
    await worker.runOnce();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(31);
    await worker.runOnce();
    expect(receiver.received).toHaveLength(2);
    expect(outcomes).toEqual(['retrying', 'delivered']);
    const deliveries = (await (await webhookRequest(t, `webhooks/${created.webhook_id}/deliveries`, 'GET')).json()).data
      .items;
    expect(deliveries[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(deliveries[0].attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
  });

  it('a 429 delays the endpoint by its Retry-After', async () => {
    const { receiver } = await chatEndpoint('teams', (n) =>
      n === 0 ? (_n, res) => res.writeHead(429, { 'retry-after': '300' }).end('slow down') : 200,
    );
    const { worker } = testWorker(t);
    await writeEvent(t);
    await worker.runOnce();
    t.clock.advance(61);
    await worker.runOnce();
    t.clock.advance(200);
    await worker.runOnce();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(40);
    await worker.runOnce();
    expect(receiver.received).toHaveLength(2);
  });

  it('a standard endpoint delays its attempts after a 429 too', async () => {
    const r = await startReceiver((n) =>
      n === 0 ? (_n, res) => res.writeHead(429, { 'retry-after': '120' }).end() : 200,
    );
    receivers.push(r);
    expect((await webhookRequest(t, 'webhooks', 'POST', { url: r.url, events: ['server.revoked'] })).status).toBe(201);
    const { worker } = testWorker(t);
    await writeEvent(t);
    await worker.runOnce();
    t.clock.advance(10);
    await worker.runOnce();
    expect(r.received).toHaveLength(1);
    t.clock.advance(111);
    await worker.runOnce();
    expect(r.received).toHaveLength(2);
    const [row] = await queryRows<{ send_after: string | null }>(
      t.database.db,
      sql`select send_after::text from webhook_endpoints`,
    );
    expect(row!.send_after).not.toBeNull();
  });
});
