import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { adminApi, dataOf, type AdminApi } from './admin-api.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { formatTable, print, type Row } from './output.js';

type OperatorPrecheck = components['schemas']['OperatorPrecheck'];

/** The most waiting machines `codes show` prints; `codes waiting` pages through them all. */
const SHOWN_WAITING = 50;

const waitingRow = (p: OperatorPrecheck): Row => ({
  precheck: p.precheck_id,
  machine_id: p.machine_id,
  ssh_key: p.ssh_fingerprint,
  address: p.ip,
  installer: p.installer_version,
  prechecked_at: p.prechecked_at,
});
const waitingColumns = ['precheck', 'machine_id', 'ssh_key', 'address', 'installer', 'prechecked_at'];
/**
 * Why a waiting row has no hostname, and what names the machine instead: a precheck comes before the installer
 * asks for the hostname (it is given at activate, after the decision).
 */
const NO_HOSTNAME_YET =
  'No hostname yet: a machine gives it at activate, after the decision. Compare its machine_id, ssh_key and address (where it prechecked from) with the server you are installing.';

function waitingPage(api: AdminApi, id: string, limit: number, cursor?: string) {
  return api.GET('/api/v2/admin/install-codes/{install_code_id}/pending-prechecks', {
    params: { path: { install_code_id: id }, query: { limit, cursor } },
  });
}

/**
 * What `codes show` prints after the code: the machines waiting on a decision (the newest SHOWN_WAITING of
 * `pending`), and how to decide on them.
 */
export async function waitingMachinesText(url: string, api: AdminApi, id: string, pending: number): Promise<string> {
  if (pending === 0) return '';
  const page = await dataOf(url, waitingPage(api, id, SHOWN_WAITING));
  const more =
    pending > page.items.length ? ` (the newest ${page.items.length}: slowdns codes waiting ${id} lists all)` : '';
  return `\n${pending} machine${pending === 1 ? '' : 's'} waiting for a decision${more}; slowdns codes approve|deny ${id} <precheck>:\n${formatTable(page.items.map(waitingRow), waitingColumns)}${NO_HOSTNAME_YET}\n`;
}

/** `codes waiting <id>`, `codes approve <id> <precheck>`, `codes deny <id> <precheck>`: fleet approval (DESIGN §22). */
export function registerPrecheckDecisionCommands(codes: Command, context: CliContext): void {
  connectionOptions(
    codes
      .command('waiting')
      .description('the machines waiting for a decision on a code issued with approval, newest first')
      .argument('<install_code_id>', "the code's id (ic_…)"),
  )
    .option('--json', 'print them as JSON')
    .action(async (id: string, flags: ConnectionFlags & { json?: boolean }) => {
      const connection = connectionFrom(context.env, flags);
      const api = adminApi(connection);
      const items: OperatorPrecheck[] = [];
      let cursor: string | undefined;
      do {
        const page = await dataOf(connection.url, waitingPage(api, id, 200, cursor));
        items.push(...page.items);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      const note = `${items.length} machine${items.length === 1 ? '' : 's'} waiting.${items.length ? ` ${NO_HOSTNAME_YET}` : ''}`;
      print(outputFor(context, flags), items, items.map(waitingRow), waitingColumns, note);
    });

  for (const decision of ['approve', 'deny'] as const) {
    connectionOptions(
      codes
        .command(decision)
        .description(
          decision === 'approve'
            ? 'approve a machine waiting on a code issued with approval: it may then activate (one use)'
            : 'deny a machine waiting on a code issued with approval: it is refused (a uses: 1 code is revoked)',
        )
        .argument('<install_code_id>', "the code's id (ic_…)")
        .argument('<precheck_id>', 'the waiting machine, as `codes show` or `codes waiting` lists it (pc_…)'),
    )
      .option('--reason <text>', "why, kept in the event with the operator's name")
      .option('--json', 'print the decision as JSON')
      .action(async (id: string, precheck: string, flags: ConnectionFlags & { json?: boolean; reason?: string }) => {
        const connection = connectionFrom(context.env, flags);
        const path = { install_code_id: id, precheck_id: precheck };
        const answer =
          decision === 'approve'
            ? adminApi(connection).POST(
                '/api/v2/admin/install-codes/{install_code_id}/prechecks/{precheck_id}/approve',
                {
                  params: { path },
                  body: { reason: flags.reason },
                },
              )
            : adminApi(connection).POST('/api/v2/admin/install-codes/{install_code_id}/prechecks/{precheck_id}/deny', {
                params: { path },
                body: { reason: flags.reason },
              });
        const decided = await dataOf(connection.url, answer);
        const row = {
          code: decided.install_code_id,
          precheck: decided.precheck_id,
          decision: decided.decision,
          decided_at: decided.decided_at,
        };
        print(outputFor(context, flags), decided, [row], Object.keys(row), `${precheck} is ${decided.decision}.`);
      });
  }
}
