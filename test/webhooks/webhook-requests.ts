import { postJson, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

export function webhookRequest(t: TestApp, path: string, method: string, body?: unknown) {
  const init = body === undefined ? { method, headers: auth } : { ...postJson(body, auth), method };
  return t.request(`/api/v2/admin/${path}`, init);
}

/** Adds an endpoint; answers its record with the secret (fails on a non-201). */
export async function addWebhook(t: TestApp, url: string, events: string[] = ['*']) {
  const res = await webhookRequest(t, 'webhooks', 'POST', { url, events });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data as { webhook_id: string; secret: string } & Record<string, any>;
}
