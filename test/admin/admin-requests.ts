import { postJson, type TestApp } from '../support/test-app.js';

export const ADMIN_TOKEN = 'operator-secret-0123456789abcdef0123456789';

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** GET an admin list with the operator token; answers the JSON body (and fails on a non-200). */
export async function adminList(t: TestApp, path: string, query: Record<string, string | number> = {}) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await t.request(`/api/v2/admin/${path}${search.size ? `?${search}` : ''}`, { headers: auth });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data as { items: Record<string, any>[]; next_cursor: string | null };
}

/** Every item of a list, page by page; `between` runs after each page (to add rows while paging). */
export async function allPages(
  t: TestApp,
  path: string,
  query: Record<string, string | number>,
  between: () => Promise<void> = async () => {},
) {
  const items: Record<string, any>[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const page = await adminList(t, path, cursor ? { ...query, cursor } : query);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) return items;
    await between();
  }
  throw new Error('more than 50 pages');
}

export function adminAction(t: TestApp, path: string, body?: unknown) {
  return t.request(
    `/api/v2/admin/${path}`,
    body === undefined ? { method: 'POST', headers: auth } : postJson(body, auth),
  );
}
