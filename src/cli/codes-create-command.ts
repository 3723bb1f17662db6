import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { adminApi, dataOf } from './admin-api.js';
import { CliError } from './cli-error.js';
import { durationSeconds, durationText } from '../duration.js';
import { FLEET_CODE_MAX_TTL_SECONDS, FLEET_CODE_MIN_TTL_SECONDS } from '../domain/install-codes/fleet-rules.js';
import { TRUST_CODE_MAX_TTL_SECONDS } from '../domain/identity/trust-block.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { print, type Row } from './output.js';
import { repeatable, tagsOf, tagsText } from './tag-options.js';
import { trustText } from './trust-text.js';

type CreateRequest = components['schemas']['CreateInstallCodeRequest'];
type Created = components['schemas']['CreatedInstallCode'];
type TrustInput = NonNullable<CreateRequest['trust']>;

interface CreateFlags extends ConnectionFlags {
  uses?: string;
  ttl?: string;
  tag?: string[];
  cidr?: string[];
  hostname?: string;
  requireApproval?: boolean;
  requireMachineProof?: boolean;
  trustFile?: string;
  description?: string;
  reason?: string;
  json?: boolean;
}

/** `--ttl` as seconds: a number of seconds, or a duration (`90m`, `12h`, `7d`), within a fleet code's range (a year with trust). */
function ttlSecondsOf(text: string, withTrust: boolean): number {
  const seconds = durationSeconds(text);
  const longest = withTrust ? TRUST_CODE_MAX_TTL_SECONDS : FLEET_CODE_MAX_TTL_SECONDS;
  const range = `${durationText(FLEET_CODE_MIN_TTL_SECONDS)} to ${durationText(longest)}`;
  if (seconds === undefined)
    throw new CliError(`--ttl must be seconds or a duration such as 90m, 12h or 7d (${range}), not ${text}`, 2);
  if (seconds < FLEET_CODE_MIN_TTL_SECONDS || seconds > longest)
    throw new CliError(`--ttl must be ${range}, not ${text}`, 2);
  return seconds;
}

function usesOf(text: string): number {
  if (!/^\d{1,6}$/.test(text.trim())) throw new CliError(`--uses must be a whole number, not ${text}`, 2);
  return Number(text);
}

/**
 * `--trust-file`: a JSON file holding a `trust` block (DESIGN §25), as docs/installers.md writes one per platform.
 * Only its form is checked here; the service checks the rest (and says what is wrong in one line).
 */
async function trustOf(path: string): Promise<TrustInput> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read --trust-file ${path} (${error.code ?? error.message})`, 2);
  });
  let trust: unknown;
  try {
    trust = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--trust-file ${path} is not JSON: ${(error as Error).message}`, 2);
  }
  if (typeof trust !== 'object' || trust === null || Array.isArray(trust))
    throw new CliError(`--trust-file ${path} must hold one JSON object, the trust block (issuer, audiences, …)`, 2);
  return trust as TrustInput;
}

/** The API's request from the flags: only what was given, so the service's defaults apply to the rest. */
async function createRequestOf(flags: CreateFlags): Promise<CreateRequest> {
  const tags = tagsOf(flags.tag);
  const withTrust = flags.trustFile !== undefined;
  return {
    ...(flags.uses === undefined ? {} : { uses: usesOf(flags.uses) }),
    ...(flags.ttl === undefined ? {} : { ttl_seconds: ttlSecondsOf(flags.ttl, withTrust) }),
    ...(tags ? { tags } : {}),
    ...(flags.cidr?.length ? { allowed_cidrs: flags.cidr } : {}),
    ...(flags.hostname === undefined ? {} : { hostname_pattern: flags.hostname }),
    ...(flags.requireApproval ? { require_approval: true } : {}),
    ...(flags.requireMachineProof ? { require_machine_proof: true } : {}),
    ...(flags.description === undefined ? {} : { description: flags.description }),
    ...(flags.reason === undefined ? {} : { reason: flags.reason }),
    ...(withTrust ? { trust: await trustOf(flags.trustFile!) } : {}),
  } as CreateRequest;
}

const row = (c: Created): Row => ({
  id: c.install_code_id,
  hint: c.install_code_hint,
  uses: c.uses,
  expires_at: c.expires_at,
  tags: tagsText(c.tags),
});
const columns = ['id', 'hint', 'uses', 'expires_at', 'tags'];

/** The code, this once; a code with trust has none: its machines name it by its id. */
const secretLines = (c: Created): string[] =>
  c.install_code === null
    ? [`No secret: machines send ${c.install_code_id} with their identity token.${trustText(c.trust ?? null)}`]
    : [c.install_code, 'Keep it now: it is not shown again.'];

/** `codes create`: a fleet code (DESIGN §22), printed this once, with the service's warnings. */
export function registerCodesCreateCommand(codes: Command, context: CliContext): void {
  connectionOptions(
    codes
      .command('create')
      .description(
        'a code for a fleet (cloud-init, Ansible): reusable, limited, tagged, bound; printed this once (the service keeps only its hash)',
      )
      .option('--uses <n>', 'how many machines it may enrol, 1 to 10000 (1 when not given)')
      .option('--ttl <duration>', 'how long it lives: seconds, or 90m, 12h, 7d (5 minutes to 30 days)')
      .option('--tag <key=value>', 'a tag copied onto each activation and server (env=prod); repeatable', repeatable)
      .option('--cidr <network>', 'only machines seen inside this network (203.0.113.0/24); repeatable', repeatable)
      .option('--hostname <pattern>', "only host names matching this pattern ('*.prod.example.com')")
      .option('--require-approval', 'each machine waits until an operator approves it')
      .option('--require-machine-proof', 'each machine must prove its SSH host key at activate')
      .option(
        '--trust-file <path>',
        "a JSON file with a trust block: machines enrol with their platform's signed identity, no secret (--ttl up to 365d)",
      )
      .option('--description <text>', 'what the code is for, 1 to 200 characters')
      .option('--reason <text>', "why, kept in the event with the operator's name"),
  )
    .option('--json', 'print the code and its record as JSON')
    .action(async (flags: CreateFlags) => {
      const body = await createRequestOf(flags);
      const connection = connectionFrom(context.env, flags);
      const made = await dataOf(connection.url, adminApi(connection).POST('/api/v2/admin/install-codes', { body }));
      const warnings = made.warnings.map((w) => `warning: ${w}`);
      print(outputFor(context, flags), made, [row(made)], columns, [...secretLines(made), ...warnings].join('\n'));
    });
}
