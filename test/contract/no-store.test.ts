import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminAction } from '../admin/admin-requests.js';
import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import { activatedInstall, issue, newBrowser, precheckRequest, randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

type Json = Record<string, any>;

/** What a secret shown once is called in an answer's `data`. */
const SECRET_FIELDS = ['install_code', 'precheck_token', 'install_token', 'agent_token', 'token', 'secret'];

/** An answer that shows a secret is never kept by a cache or a browser's history: `Cache-Control: no-store`. */
describe('answers that carry a secret', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const resolve = (schema: Json): Json =>
    schema?.$ref ? resolve(t.document.components!.schemas![schema.$ref.split('/').at(-1)!] as Json) : schema;

  /** Every 2xx JSON answer of the document whose `data` has a secret field, as `METHOD path status`. */
  const secretAnswers = () =>
    Object.entries(t.document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        Object.entries(((op as Json).responses ?? {}) as Record<string, Json>)
          .filter(([status, response]) => {
            if (!status.startsWith('2')) return false;
            const envelope = resolve(response.content?.['application/json']?.schema);
            const data = resolve(envelope?.properties?.data);
            const fields = Object.keys(data?.properties ?? {});
            return fields.some((f) => SECRET_FIELDS.includes(f));
          })
          .map(([status, response]) => ({ at: `${method.toUpperCase()} ${path} ${status}`, response })),
      ),
    );

  it('every answer of the document with a secret in it documents Cache-Control: no-store', () => {
    const answers = secretAnswers();
    expect(answers.map((a) => a.at)).toEqual(
      expect.arrayContaining([
        'POST /api/v2/slowdns/code/issue 201',
        'POST /api/v2/slowdns/install/precheck 200',
        'POST /api/v2/slowdns/install/activate 200',
        'POST /register 201',
        'POST /api/v2/admin/install-codes 201',
        'POST /api/v2/admin/tokens 201',
        'POST /api/v2/admin/webhooks 201',
      ]),
    );
    const undocumented = answers
      .filter(({ response }) => !/no-store/.test(response.headers?.['Cache-Control']?.description ?? ''))
      .map((a) => a.at);
    expect(undocumented).toEqual([]);
  });

  it('each of them answers Cache-Control: no-store', async () => {
    const seen: Record<string, string | null> = {};
    const browser = await newBrowser(t);
    const issued = await issue(t, browser);
    const pre = await precheckRequest(t, issued.code, randomMachine());
    seen.precheck = pre.headers.get('cache-control');
    const a = await activatedInstall(t);
    const reg = await registerRequest(t, {
      activation_id: a.activationId,
      install_token: a.installToken,
      agent_version: AGENT_VERSION,
    });
    seen.register = reg.headers.get('cache-control');
    seen.fleetCode = (await adminAction(t, 'install-codes', { uses: 2 })).headers.get('cache-control');
    seen.token = (await adminAction(t, 'tokens', { name: 'reader', scope: 'read' })).headers.get('cache-control');
    const hook = await adminAction(t, 'webhooks', { url: 'https://hooks.example.com/x', events: ['*'] });
    seen.webhook = hook.headers.get('cache-control');
    const { webhook_id: id } = (await hook.json()).data;
    seen.rotated = (await adminAction(t, `webhooks/${id}/rotate-secret`)).headers.get('cache-control');
    expect(seen).toEqual({
      precheck: 'no-store',
      register: 'no-store',
      fleetCode: 'no-store',
      token: 'no-store',
      webhook: 'no-store',
      rotated: 'no-store',
    });
  });
});
