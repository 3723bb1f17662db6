import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { systemClock } from '../clock.js';
import { actionCommand } from './action-command.js';
import { adminApi, dataOf } from './admin-api.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { expiresAt } from './limits-commands.js';
import { print, type Row } from './output.js';

type TokenRecord = components['schemas']['OperatorTokenRecord'];
type TokenRequest = components['schemas']['OperatorTokenRequest'];

const row = (t: TokenRecord): Row => ({
  id: t.operator_token_id,
  name: t.name,
  scope: t.scope,
  status: t.status,
  created_at: t.created_at,
  expires_at: t.expires_at,
  last_used_at: t.last_used_at,
});
const columns = ['id', 'name', 'scope', 'status', 'created_at', 'expires_at', 'last_used_at'];

/** `tokens create|list|revoke` over the admin API: only ADMIN_TOKEN manages named operator tokens. */
export function registerTokensCommands(program: Command, context: CliContext): void {
  const tokens = program
    .command('tokens')
    .description('named operator tokens on a running service (admin API, ADMIN_TOKEN only): create, list, revoke');

  connectionOptions(
    tokens
      .command('create')
      .description('make a named operator token; it is printed this once (the service keeps only its hash)')
      .argument('<name>', 'who acts with it, as events name them (not root)')
      .requiredOption('--scope <scope>', 'read (lists and objects) or write (those and the operator actions)')
      .option(
        '--expires <when>',
        'when it stops working: an ISO 8601 time or a duration from now (90m, 12h, 30d); left out, until revoked',
      )
      .option('--reason <text>', "why, kept in the event with the operator's name"),
  )
    .option('--json', 'print the token and its record as JSON')
    .action(
      async (
        name: string,
        flags: ConnectionFlags & { scope: string; expires?: string; reason?: string; json?: boolean },
      ) => {
        const body: TokenRequest = {
          name,
          scope: flags.scope as TokenRequest['scope'],
          ...(flags.expires === undefined ? {} : { expires_at: expiresAt(flags.expires, systemClock) }),
          ...(flags.reason === undefined ? {} : { reason: flags.reason }),
        };
        const connection = connectionFrom(context.env, flags);
        const made = await dataOf(connection.url, adminApi(connection).POST('/api/v2/admin/tokens', { body }));
        print(
          outputFor(context, flags),
          made,
          [row(made)],
          columns,
          `${made.operator_token_id} (${made.name}, ${made.scope}): ${made.token}\nKeep it now: it is not shown again.`,
        );
      },
    );

  connectionOptions(
    tokens
      .command('list')
      .description('every named operator token, newest first, with its scope, status and last use (never the token)'),
  )
    .option('--json', 'print the list as JSON')
    .action(async (flags: ConnectionFlags & { json?: boolean }) => {
      const connection = connectionFrom(context.env, flags);
      const list = await dataOf(connection.url, adminApi(connection).GET('/api/v2/admin/tokens'));
      print(outputFor(context, flags), list, list.items.map(row), columns, `${list.items.length} operator tokens.`);
    });

  actionCommand<TokenRecord, ConnectionFlags & { json?: boolean; reason?: string }>(tokens, context, {
    name: 'revoke',
    argument: ['<id>', "the token's id (opt_…), as `tokens list` shows it"],
    description: 'revoke a named operator token: it is refused from the next request on (idempotent)',
    options: (c) => c.option('--reason <text>', "why, kept in the event with the operator's name"),
    act: (api, id, flags) =>
      api.DELETE('/api/v2/admin/tokens/{id}', { params: { path: { id } }, body: { reason: flags.reason } }),
    row,
    columns,
    done: (t) => `${t.operator_token_id} (${t.name}) is ${t.status}.`,
  });
}
