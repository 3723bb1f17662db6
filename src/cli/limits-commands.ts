import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { systemClock, toIsoOffset, type Clock } from '../clock.js';
import { actionCommand } from './action-command.js';
import { adminApi, dataOf } from './admin-api.js';
import { CliError } from './cli-error.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { listCommand, type ListFlags } from './list-command.js';
import { print, type Row } from './output.js';

type OverrideRecord = components['schemas']['RateLimitOverrideRecord'];
type OverrideRequest = components['schemas']['RateLimitOverrideRequest'];
type Usage = components['schemas']['RateLimitUsage'];

const overrideRow = (o: OverrideRecord): Row => ({
  id: o.rate_limit_override_id,
  status: o.status,
  limit_name: o.limit_name,
  subject: o.subject,
  value: o.value,
  limit: `${o.limit} (default ${o.default_limit})`,
  expires_at: o.expires_at,
  set_by: o.created_by,
  reason: o.reason,
  removed: o.removed_at ? `${o.removed_at} by ${o.removed_by}${o.removal_reason ? `: ${o.removal_reason}` : ''}` : null,
});
const overrideColumns = [
  'id',
  'status',
  'limit_name',
  'subject',
  'value',
  'limit',
  'expires_at',
  'set_by',
  'reason',
  'removed',
];

const usageRow = (l: Usage['limits'][number]): Row => ({
  limit_name: l.limit_name,
  used: l.used,
  limit: l.limit,
  remaining: l.remaining,
  resets_at: l.resets_at,
  because: l.override
    ? `override ${l.override.rate_limit_override_id} (${l.override.subject} ${l.override.value}, by ${l.override.created_by}, until ${l.override.expires_at}): ${l.override.reason}`
    : `default`,
});
const usageColumns = ['limit_name', 'used', 'limit', 'remaining', 'resets_at', 'because'];

/** `--expires` as the API's `expires_at`: an ISO 8601 time as it is, or a duration from now (`90m`, `12h`, `30d`). */
export function expiresAt(text: string, clock: Clock): string {
  const duration = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (!duration) return text;
  const seconds = Number(duration[1]) * { m: 60, h: 3600, d: 86_400 }[duration[2] as 'm' | 'h' | 'd'];
  return toIsoOffset(new Date(clock.now().getTime() + seconds * 1000));
}

/** Exactly one of the target flags, as the API's `subject` and `value`. */
function targetOf<S extends string>(
  flags: Partial<Record<S, string>>,
  subjects: readonly S[],
): { subject: S; value: string } {
  const given = subjects.filter((s) => flags[s] !== undefined);
  if (given.length !== 1) throw new CliError(`give exactly one of ${subjects.map((s) => `--${s}`).join(', ')}`, 2);
  return { subject: given[0]!, value: flags[given[0]!]! };
}

type OverrideFlags = ConnectionFlags & {
  ip?: string;
  cidr?: string;
  machine?: string;
  expires: string;
  reason: string;
  json?: boolean;
};

/** `limits override|list|remove|show` over the admin API. */
export function registerLimitsCommands(program: Command, context: CliContext): void {
  const limits = program
    .command('limits')
    .description('rate-limit overrides and usage on a running service (admin API): override, list, remove, show');

  connectionOptions(
    limits
      .command('override')
      .description(
        'set the quota of one limit for an address, a network or a machine, until it expires (replaces the override in place for that limit and target)',
      )
      .argument(
        '<limit_name>',
        'a limit counted per IP (for --ip, --cidr) or per machine (for --machine), e.g. issue-ip-hour',
      )
      .argument('<limit>', 'the quota, 1 to 10000')
      .option('--ip <address>', 'one IPv4 or IPv6 address (an IPv6 address sets its /64)')
      .option('--cidr <network>', 'a network: /16 to /32 of IPv4, /32 to /64 of IPv6')
      .option('--machine <machine_id>', 'one machine-id')
      .requiredOption(
        '--expires <when>',
        'when it stops applying: an ISO 8601 time or a duration from now (90m, 12h, 30d; at most 365 days)',
      )
      .requiredOption('--reason <text>', 'why, for whoever reads the list later'),
  )
    .option('--json', 'print the override as JSON')
    .action(async (limitName: string, limit: string, flags: OverrideFlags) => {
      if (!/^\d+$/.test(limit)) throw new CliError(`<limit> must be a whole number, not ${limit}`, 2);
      const body: OverrideRequest = {
        ...targetOf(flags, ['ip', 'cidr', 'machine'] as const),
        limit_name: limitName as OverrideRequest['limit_name'],
        limit: Number(limit),
        expires_at: expiresAt(flags.expires, systemClock),
        reason: flags.reason,
      };
      const connection = connectionFrom(context.env, flags);
      const override = await dataOf(
        connection.url,
        adminApi(connection).POST('/api/v2/admin/rate-limit-overrides', { body }),
      );
      print(
        outputFor(context, flags),
        override,
        [overrideRow(override)],
        overrideColumns,
        `${override.rate_limit_override_id}: ${override.limit_name} is ${override.limit} for ${override.applies_to} until ${override.expires_at}.`,
      );
    });

  listCommand(limits, context, {
    description:
      'overrides, newest first, with who set each and why; expired and removed ones too, marked by their status',
    filters: (c) =>
      c
        .option('--status <status>', 'active, expired or removed')
        .option('--limit-name <name>', 'one limit, e.g. issue-ip-hour'),
    query: (f: ListFlags & { status?: OverrideRecord['status']; limitName?: OverrideRecord['limit_name'] }) => ({
      status: f.status,
      limit_name: f.limitName,
    }),
    fetch: (api, query) => api.GET('/api/v2/admin/rate-limit-overrides', { params: { query } }),
    path: '/api/v2/admin/rate-limit-overrides',
    row: overrideRow,
    columns: overrideColumns,
  });

  actionCommand<OverrideRecord, ConnectionFlags & { json?: boolean; reason?: string }>(limits, context, {
    name: 'remove',
    argument: ['<rate_limit_override_id>', 'the override (rlo_…)'],
    description:
      "remove an override: the limit's default (or a less specific override) applies again, on every instance within 10 s (idempotent)",
    options: (c) => c.option('--reason <text>', 'why'),
    act: (api, id, flags) =>
      api.DELETE('/api/v2/admin/rate-limit-overrides/{rate_limit_override_id}', {
        params: { path: { rate_limit_override_id: id } },
        ...(flags.reason === undefined ? {} : { body: { reason: flags.reason } }),
      }),
    row: overrideRow,
    columns: overrideColumns,
    done: (o) => `${o.rate_limit_override_id} is ${o.status}.`,
  });

  connectionOptions(
    limits
      .command('show')
      .description(
        'the buckets an address or machine has used in the current windows, and the quota that applies to each and why (an override, or the default)',
      )
      .option('--ip <address>', 'a client address (an IPv6 one is counted by its /64)')
      .option('--machine <machine_id>', 'a machine-id'),
  )
    .option('--json', 'print the answer as JSON')
    .action(async (flags: ConnectionFlags & { ip?: string; machine?: string; json?: boolean }) => {
      const target = targetOf(flags, ['ip', 'machine'] as const);
      const connection = connectionFrom(context.env, flags);
      const usage = await dataOf(
        connection.url,
        adminApi(connection).GET('/api/v2/admin/rate-limit-usage', {
          params: { query: { [target.subject]: target.value } },
        }),
      );
      print(
        outputFor(context, flags),
        usage,
        usage.limits.map(usageRow),
        usageColumns,
        `${usage.subject} ${usage.value}, counted as ${usage.counted_as}.`,
      );
    });
}
