import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { activations, installCodes, servers } from '../../src/db/schema.js';
import { postJson, type TestApp } from './test-app.js';

/** A machine identity as an installer sends it. */
export const machine = {
  machine_id: '4c4c4544003957108052b4c04f384833',
  ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
};

export const otherMachine = {
  machine_id: '0123456789abcdef0123456789abcdef',
  ssh_fingerprint: 'SHA256:AAAbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
};

export const INSTALLER_VERSION = '2026.11.20.1';

export type Machine = typeof machine;

let counter = 0;

/** A machine no other test step uses, so that per-machine limits never mix unrelated steps. */
export function randomMachine(): Machine {
  const hex = randomBytes(16).toString('hex');
  return { machine_id: hex, ssh_fingerprint: `SHA256:${randomBytes(32).toString('base64').slice(0, 43)}` };
}

/** A client address (and browser) no other step uses, for tests that are not about per-IP limits. */
export function freshClient(): { address: string; userAgent: string } {
  counter += 1;
  return {
    address: `198.51.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`,
    userAgent: `vitest-browser/${counter}`,
  };
}

/** Loads /slowdns and returns the `Cookie` header value of the new session. */
export async function openBrowserSession(
  t: TestApp,
  address?: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await t.request('/slowdns', { headers }, address);
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const match = /slowdns_browser=([^;]+)/.exec(setCookie);
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return `slowdns_browser=${match[1]}`;
}

export function issueRequest(t: TestApp, cookie: string, address?: string, headers: Record<string, string> = {}) {
  return t.request('/api/v2/slowdns/code/issue', { method: 'POST', headers: { cookie, ...headers } }, address);
}

/** A browser as the service sees it: its session cookie, the address it comes from, its headers. */
export interface Browser {
  cookie: string;
  address: string;
  headers: Record<string, string>;
}

/** A browser at `address` sending `userAgent` (its fingerprint), with the session /slowdns opened for it. */
export async function browserAt(t: TestApp, address: string, userAgent: string): Promise<Browser> {
  const headers = { 'user-agent': userAgent };
  return { cookie: await openBrowserSession(t, address, headers), address, headers };
}

/** A new browser at a new address, with its session open: no issue limit is touched twice. */
export async function newBrowser(t: TestApp): Promise<Browser> {
  const { address, userAgent } = freshClient();
  return browserAt(t, address, userAgent);
}

export interface IssuedCode {
  code: string;
  id: string;
  hint: string;
}

/** A code issued to `browser` (201, or the test fails). */
export async function issue(t: TestApp, browser: Browser): Promise<IssuedCode> {
  const res = await issueRequest(t, browser.cookie, browser.address, browser.headers);
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { code: data.install_code, id: data.install_code_id, hint: data.install_code_hint };
}

/** `browser` cancels one of its codes ("Not you?"); `headers` adds to (or overrides) what it sends. */
export function cancelRequest(
  t: TestApp,
  browser: Browser,
  installCodeId: string,
  headers: Record<string, string> = {},
) {
  return t.request(
    '/api/v2/slowdns/code/cancel',
    postJson({ install_code_id: installCodeId }, { cookie: browser.cookie, ...browser.headers, ...headers }),
    browser.address,
  );
}

/** A new code from a new browser at a new address. */
export async function issueCode(t: TestApp): Promise<string> {
  return (await issue(t, await newBrowser(t))).code;
}

export function precheckRequest(
  t: TestApp,
  installCode: string,
  overrides: Record<string, unknown> = {},
  address?: string,
) {
  return t.request(
    '/api/v2/slowdns/install/precheck',
    postJson({
      install_code: installCode,
      ...machine,
      product: 'slowdns',
      installer_version: INSTALLER_VERSION,
      ...overrides,
    }),
    address,
  );
}

export async function precheckToken(
  t: TestApp,
  installCode: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await precheckRequest(t, installCode, overrides, freshClient().address);
  expect(res.status).toBe(200);
  return (await res.json()).data.precheck_token;
}

export function activateRequest(
  t: TestApp,
  installCode: string,
  token: string,
  overrides: Record<string, unknown> = {},
  address?: string,
) {
  return t.request(
    '/api/v2/slowdns/install/activate',
    postJson({
      install_code: installCode,
      precheck_token: token,
      hostname: 'vpn1.example.net',
      public_ip: '203.0.113.7',
      ...machine,
      requested_ref: 'main',
      installer_version: INSTALLER_VERSION,
      ...overrides,
    }),
    address,
  );
}

export interface Activated {
  code: string;
  activationId: string;
  installToken: string;
  /** The address activate came from: where the installer's token-less release comes from too. */
  address: string;
}

/** Issue → precheck → activate: an activation ready to confirm or release. */
export async function activatedInstall(t: TestApp, onMachine: Machine = randomMachine()): Promise<Activated> {
  const code = await issueCode(t);
  const { address } = freshClient();
  const res = await activateRequest(t, code, await precheckToken(t, code, onMachine), onMachine, address);
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return { code, activationId: data.activation_id, installToken: data.install_token, address };
}

export function confirmRequest(t: TestApp, activationId: string, installToken: string) {
  return t.request(
    '/api/v2/slowdns/install/confirm',
    postJson({ activation_id: activationId, install_token: installToken }),
  );
}

/**
 * Release as the seed's installer sends it: the activation id alone, from `from.address` (the address activate
 * came from proves the installer; the test app's default address otherwise). `from.installToken` adds the token.
 */
export function releaseRequest(
  t: TestApp,
  activationId: string,
  from: { address?: string | undefined; installToken?: string | undefined } = {},
) {
  const body = { activation_id: activationId, ...(from.installToken ? { install_token: from.installToken } : {}) };
  return t.request('/api/v2/slowdns/install/release', postJson(body), from.address);
}

export async function expectError(res: Response, status: number, code: string): Promise<void> {
  const body = await res.json();
  expect({ status: res.status, body }).toEqual({ status, body: { error: { code, message: expect.any(String) } } });
}

/** The rows an install step can change (rate-limit buckets left out: a refused request may still count). */
export async function lifecycleRows(t: TestApp) {
  const { db } = t.database;
  return {
    installCodes: await db.select().from(installCodes).orderBy(installCodes.id),
    activations: await db.select().from(activations).orderBy(activations.id),
    servers: await db.select().from(servers).orderBy(servers.id),
  };
}

/** A refused request: the error envelope, and not one install code, activation or server changed. */
export async function expectRefusal(
  t: TestApp,
  send: () => Promise<Response>,
  status: number,
  code: string,
): Promise<void> {
  const before = await lifecycleRows(t);
  await expectError(await send(), status, code);
  expect(await lifecycleRows(t)).toEqual(before);
}
