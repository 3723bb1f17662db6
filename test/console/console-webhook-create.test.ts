import { describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../src/db/schema.js';
import type { TestApp } from '../support/test-app.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, consolePage, formTokenOf, mintToken, postForm, signIn } from './console-support.js';

async function createForm(t: TestApp, cookie: string): Promise<{ form_token: string; create_token: string }> {
  const { status, html } = await consolePage(t, '/admin/webhooks/new', cookie);
  expect(status).toBe(200);
  const createToken = /name="create_token" value="([A-Za-z0-9_-]{20,})"/.exec(html)?.[1];
  expect(createToken).toBeDefined();
  return { form_token: await formTokenOf(t, cookie), create_token: createToken! };
}

describe('the console adds webhook endpoints, chat formats included (DESIGN §28)', () => {
  const t = useTestApp({ ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('adds a Slack endpoint from the form, shows its URL once, and keeps no secret', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const url = 'http://127.0.0.1:9/services/T000/B000/XXXX';
    const fields = { url, format: 'slack', events: 'server.went_dead, install_code.approval_requested' };
    const res = await postForm(t, '/admin/webhooks', { ...fields, ...(await createForm(t, cookie)) }, { cookie });
    const html = await res.text();
    expect(res.status).toBe(201);
    expect(html).toContain(url);
    expect(html).toContain('not shown again');
    const [row] = await t.database.db.select().from(webhookEndpoints);
    expect(row).toMatchObject({
      format: 'slack',
      secret: null,
      secretSealed: null,
      eventTypes: ['server.went_dead', 'install_code.approval_requested'],
    });
    const list = await consolePage(t, '/admin/webhooks', cookie);
    expect(list.html).toContain('slack');
    expect(list.html).not.toContain('XXXX');
  });

  it('a refused URL shows the form again with the reason, the URL not put back', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const fields = { url: 'http://169.254.169.254/latest', format: 'discord', events: '*' };
    const res = await postForm(t, '/admin/webhooks', { ...fields, ...(await createForm(t, cookie)) }, { cookie });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain('cannot be a webhook target');
    expect(html).not.toContain('value="http://169.254.169.254/latest"');
    expect(await t.database.db.select().from(webhookEndpoints)).toEqual([]);
  });

  it('a read-scope session cannot open the form', async () => {
    const reader = await mintToken(t, 'viewer', 'read');
    const cookie = await signIn(t, reader.token);
    expect((await consolePage(t, '/admin/webhooks/new', cookie)).status).toBe(403);
  });
});
