import { expect } from 'vitest';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { postJson, type TestApp } from '../support/test-app.js';

export { ADMIN_TOKEN };

/** A named operator token made with ADMIN_TOKEN: its id and the token. */
export async function mintToken(
  t: TestApp,
  name: string,
  scope: 'read' | 'write',
): Promise<{ id: string; token: string }> {
  const res = await t.request(
    '/api/v2/admin/tokens',
    postJson({ name, scope }, { authorization: `Bearer ${ADMIN_TOKEN}` }),
  );
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { id: data.operator_token_id, token: data.token };
}

/** An HTML form's POST as a browser on the console's page sends it (same origin). */
export function postForm(
  t: TestApp,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  address?: string,
) {
  return t.request(
    path,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: t.config.publicBaseUrl.origin,
        'sec-fetch-site': 'same-origin',
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    },
    address,
  );
}

/** Signs in with a token: the session's `cookie` header value (the sign-in must succeed). */
export async function signIn(t: TestApp, token: string, address?: string): Promise<string> {
  const res = await postForm(t, '/admin/sign-in', { token }, {}, address);
  expect(res.status).toBe(303);
  const setCookie = res.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/HttpOnly/);
  return setCookie.split(';')[0]!;
}

/** A console page as the session sees it. */
export async function consolePage(
  t: TestApp,
  path: string,
  cookie: string,
): Promise<{ status: number; html: string; res: Response }> {
  const res = await t.request(path, { headers: { cookie } });
  return { status: res.status, html: await res.text(), res };
}

/** The form token a page of this session carries. */
export async function formTokenOf(t: TestApp, cookie: string): Promise<string> {
  const { html } = await consolePage(t, '/admin', cookie);
  const token = /name="form_token" value="([0-9a-f]{64})"/.exec(html)?.[1];
  expect(token).toBeDefined();
  return token!;
}
