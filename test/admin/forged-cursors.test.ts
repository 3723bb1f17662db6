import { describe, expect, it } from 'vitest';
import { consolePage, signIn } from '../console/console-support.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './admin-requests.js';

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const cursor = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');

/** DESIGN §23: one decoder for every list's cursor; a forged or out-of-range one is 400 validation_failed, never a 500. */
describe('forged list cursors', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const timedLists = ['install-codes', 'activations', 'servers', 'rate-limit-overrides'];
  const timedForgeries = [
    { t: 1e20, id: 'ic_0000000000000000' },
    { t: -8.64e15, id: 'ic_0000000000000000' },
    { t: 1.5, id: 'ic_0000000000000000' },
    { t: 1, id: '\u0000' },
    { t: 1, id: 'x'.repeat(10_000) },
    { t: '1', id: 'ic_0000000000000000' },
  ];
  const eventForgeries = [
    { t: 1, id: 1.5 },
    { t: 1, id: 2 ** 63 },
    { t: 1, id: -1 },
    { t: 1, id: 1e300 },
    { t: 1, id: '1' },
    { t: 1e20, id: 1 },
    // A cursor of the list before it was ordered by time (its id alone).
    { id: 1 },
  ];

  it('every list answers a forged or out-of-range cursor 400 validation_failed naming cursor, and logs no error', async () => {
    const answers: string[] = [];
    const tryOne = async (path: string, position: unknown) => {
      for (const accept of ['application/json', 'application/x-ndjson']) {
        const res = await t.request(`/api/v2/admin/${path}?cursor=${cursor(position)}`, {
          headers: { ...auth, accept },
        });
        const body = await res.json();
        answers.push(
          `${path} ${JSON.stringify(position).slice(0, 40)} ${res.status} ${body.error?.code} ${body.error?.message.includes('cursor')}`,
        );
      }
    };
    for (const path of timedLists) for (const position of timedForgeries) await tryOne(path, position);
    for (const position of eventForgeries) await tryOne('events', position);
    expect(answers.filter((a) => !a.endsWith(' 400 validation_failed true'))).toEqual([]);
    expect(t.logs.map((line) => JSON.parse(line)).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('the console’s lists answer a forged cursor as a 400 page, not a 500', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const pages = [
      `/admin/events?cursor=${cursor({ t: 1, id: 2 ** 63 })}`,
      `/admin/events?cursor=${cursor({ t: 1, id: 1.5 })}`,
      `/admin/codes?cursor=${cursor({ t: 1e20, id: 'ic_0000000000000000' })}`,
      `/admin/activations?cursor=${cursor({ t: 1e20, id: 'act_0000000000000000' })}`,
      `/admin/servers?cursor=${cursor({ t: 1e20, id: 'srv_0000000000000000' })}`,
    ];
    const statuses: string[] = [];
    for (const path of pages) statuses.push(`${path.split('?')[0]} ${(await consolePage(t, path, cookie)).status}`);
    expect(statuses).toEqual(pages.map((p) => `${p.split('?')[0]} 400`));
  });
});
