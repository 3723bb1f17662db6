import { expect } from 'vitest';
import { postJson, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';

export const OVERRIDES = '/api/v2/admin/rate-limit-overrides';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface OverrideBody {
  subject: 'ip' | 'cidr' | 'machine';
  value: string;
  limit_name: string;
  limit: number;
  expires_at?: string;
  reason?: string;
}

/** POST an override as the operator; `expires_at` a day after the app's clock and a reason unless given. */
export function overrideRequest(t: TestApp, body: Partial<OverrideBody> | Record<string, unknown>) {
  const expires = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
  return t.request(OVERRIDES, postJson({ expires_at: expires, reason: 'Office NAT (test)', ...body }, auth));
}

/** An override in force (201, or the test fails): its record. */
export async function setOverride(t: TestApp, body: OverrideBody): Promise<Record<string, any>> {
  const res = await overrideRequest(t, body);
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

export function removeOverride(t: TestApp, id: string, reason?: string) {
  return t.request(
    `${OVERRIDES}/${id}`,
    reason === undefined ? { method: 'DELETE', headers: auth } : { ...postJson({ reason }, auth), method: 'DELETE' },
  );
}

/** Where `ip` or `machine` stands in its limits, as `slowdns limits show` reads it. */
export async function usageOf(t: TestApp, query: { ip: string } | { machine: string }) {
  const res = await t.request(`/api/v2/admin/rate-limit-usage?${new URLSearchParams(query)}`, { headers: auth });
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data as { subject: string; value: string; counted_as: string; limits: Record<string, any>[] };
}
