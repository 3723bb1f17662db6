import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { startAnswerCuttingProxy } from './answer-cutting-proxy.js';
import { spawnService } from './spawn-service.js';

export interface LostCreate {
  /** How the first request ended for its client: a network error, never an answer. */
  firstRequest: string;
  /** The retry with the same key, to the restarted service. */
  retry: { status: number; replayed: string | null; installCode: string; installCodeId: string };
  /** A second retry, to be sure the replay is stable. */
  again: { status: number; installCode: string };
  /** What the restarted service lists: every code it holds. */
  listed: { install_code_id: string; install_code_hint: string }[];
}

const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

/**
 * An operator creates a fleet code with an Idempotency-Key through a proxy that loses the answer: the
 * service is killed with SIGKILL the moment its answer (so its COMMIT) is on the wire, and the client
 * only sees its connection cut. The service is started again on the same database (`env`), and the
 * operator retries with the same key.
 */
export async function loseCreateAnswer(env: Record<string, string>): Promise<LostCreate> {
  const first = spawnService({ ADMIN_TOKEN, ...env });
  let second: ReturnType<typeof spawnService> | undefined;
  const proxy = await startAnswerCuttingProxy({ port: await first.port }, () => first.process.kill('SIGKILL'));
  try {
    await first.logged('ready');
    const key = randomUUID();
    const body = JSON.stringify({ uses: 5, tags: { fleet: 'edge' } });
    const create = (base: string) =>
      fetch(`${base}/api/v2/admin/install-codes`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': key },
        body,
      });
    const firstRequest = await create(proxy.url).then(
      (res) => `answered ${res.status}`,
      (error: Error) => `network error (${error.name})`,
    );
    await first.exited;
    second = spawnService({ ADMIN_TOKEN, ...env });
    const base = `http://127.0.0.1:${await second.port}`;
    await second.logged('ready');
    const retried = await create(base);
    const retryBody = await retried.json();
    const again = await create(base);
    const listed = await (await fetch(`${base}/api/v2/admin/install-codes`, { headers: auth })).json();
    return {
      firstRequest,
      retry: {
        status: retried.status,
        replayed: retried.headers.get('idempotent-replayed'),
        installCode: retryBody.data?.install_code,
        installCodeId: retryBody.data?.install_code_id,
      },
      again: { status: again.status, installCode: (await again.json()).data?.install_code },
      listed: listed.data.items,
    };
  } finally {
    await proxy.close();
    if (first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
    await second?.stop();
  }
}
