import { z } from '@hono/zod-openapi';
import { DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE } from '../../domain/admin-lists/pagination.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';
import { addressOrNetwork } from '../ip-network.js';
import { TimestampSchema } from '../install-code.js';
import { ACCEPTED_TIME_MESSAGE, withinAcceptedTimes } from '../accepted-time.js';

const instant = (description: string) =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp such as 2026-11-22T10:00:00+00:00' })
    .max(40, 'must be an ISO 8601 timestamp such as 2026-11-22T10:00:00+00:00')
    .refine(withinAcceptedTimes, ACCEPTED_TIME_MESSAGE)
    .optional()
    .openapi({
      description: `${description} Between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.`,
      example: '2026-11-22T10:00:00+00:00',
    });

/**
 * A list's example cursor, made as the list makes its cursors (the item's time in epoch milliseconds and
 * its id), so that it is one the list accepts.
 */
export function exampleCursor(id: string | number, at: string): string {
  return encodeCursor({ t: Date.parse(at), id });
}

/**
 * Every free-text filter of the admin lists (a hostname, machine id, address, part of a hint): one schema,
 * so that each refuses what no stored value holds and PostgreSQL cannot take (a NUL byte) with 400
 * `validation_failed`, never a failed query. The longest value a filter matches is a hostname (253).
 */
const AdminTextFilterSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  .openapi('AdminTextFilter', {
    description:
      'A text filter of the admin lists: 1 to 253 characters, without control characters (U+0000 to U+001F, U+007F to U+009F): such a value is 400 `validation_failed`.',
    example: 'vpn1.example.net',
  });

/** An optional text filter of a list: the shared schema, with what this parameter means. */
export const textFilter = (description: string, example: string) =>
  AdminTextFilterSchema.optional().openapi({ param: { description, example } });

/** The fewest characters `q` matches on: a part of a text is found through its trigrams (pg_trgm), and a shorter one has none. */
const SEARCH_TEXT_MIN_LENGTH = 3;

/** `ip`: an address or a network, in the one spelling of its network (`203.0.113.7/32`) for the query. */
const IpFilterSchema = AdminTextFilterSchema.transform((value, ctx) => {
  const parsed = addressOrNetwork(value);
  if ('problem' in parsed) {
    ctx.issues.push({ code: 'custom', message: parsed.problem, input: value });
    return z.NEVER;
  }
  return parsed.network;
});

/**
 * The search the lists of install codes, activations and servers share (DESIGN §17), beside each list's
 * own filters; `q` says what this list's `q` looks in (part of a text, or the start of an id), `machine`
 * which machine the other three are about.
 */
export function searchFilters(q: string, machine: string) {
  return {
    q: AdminTextFilterSchema.min(SEARCH_TEXT_MIN_LENGTH, `must be at least ${SEARCH_TEXT_MIN_LENGTH} characters`)
      .optional()
      .openapi({
        param: {
          description: `${q}, case-insensitive, at least ${SEARCH_TEXT_MIN_LENGTH} characters (control characters are 400 \`validation_failed\`). An id is found by its start, with or without its prefix (\`act_\`, \`srv_\`, \`ic_\`), not by a part in its middle.`,
          example: 'vpn1',
        },
      }),
    ip: IpFilterSchema.optional().openapi({
      param: {
        description: `An IPv4 or IPv6 address, or a network in CIDR notation (\`203.0.113.0/24\`, \`2001:db8::/32\`): the public IP of ${machine} is that address or in that network. A malformed address or network (a prefix past /32 or /128, address bits set after the prefix, a zone index) is 400 \`validation_failed\` naming \`ip\`.`,
        example: '203.0.113.0/24',
      },
    }),
    machine_id: textFilter(`Exact machine id (\`/etc/machine-id\`) of ${machine}.`, '4c4c4544003957108052b4c04f384833'),
    ssh_fingerprint: textFilter(
      `Exact SSH host key fingerprint of ${machine}.`,
      'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
    ),
  };
}

/** The search of a list query, as the domain's lists take it. */
export function search(query: {
  q?: string | undefined;
  ip?: string | undefined;
  machine_id?: string | undefined;
  ssh_fingerprint?: string | undefined;
}) {
  return { q: query.q, ip: query.ip, machineId: query.machine_id, sshFingerprint: query.ssh_fingerprint };
}

/** What every admin list takes: page size, cursor (`example`: one of this list's cursors) and a time range. */
export function listQuerySchema(example: string) {
  return z.object({
    limit: z.coerce
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
      .default(DEFAULT_PAGE_SIZE)
      .openapi({
        format: 'int32',
        description: `Items per page, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when not given.`,
        example: DEFAULT_PAGE_SIZE,
      }),
    cursor: z
      .string()
      .max(256, 'is too long to be a cursor')
      .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this list gave')
      .optional()
      .openapi({
        description:
          'The `next_cursor` of the previous page; leave it out for the first (newest) page. Opaque: pass it back as it is.',
        example,
      }),
    since: instant('Only items at or after this instant (the time the list is ordered by).'),
    until: instant('Only items before this instant.'),
  });
}

/** `data` of a list answer: one page, newest first, and where the next one starts. */
export function pageOf<T extends z.ZodTypeAny>(item: T, example: string) {
  return z.object({
    items: z.array(item).max(MAX_PAGE_SIZE),
    next_cursor: z
      .string()
      .max(256)
      .regex(/^[A-Za-z0-9_-]+$/)
      .nullable()
      .openapi({
        description:
          'Pass it as `cursor` for the next (older) page; `null` on the last page. Items added meanwhile never shift later pages: no item is repeated or skipped. Opaque, base64url (only `[A-Za-z0-9_-]`).',
        example,
      }),
  });
}

export const nullableTimestamp = (description: string) =>
  TimestampSchema.nullable().openapi({ description, example: '2026-11-22T10:05:00+00:00' });

/** The time range of a list query as dates. */
export function timeRange(query: { since?: string | undefined; until?: string | undefined }) {
  return {
    since: query.since ? new Date(query.since) : undefined,
    until: query.until ? new Date(query.until) : undefined,
  };
}
