import { z } from '@hono/zod-openapi';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/admin/pagination.js';
import { TimestampSchema } from '../install-code.js';

const instant = (description: string) =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp such as 2026-11-22T10:00:00+00:00' })
    .max(40, 'must be an ISO 8601 timestamp such as 2026-11-22T10:00:00+00:00')
    .optional()
    .openapi({ description, example: '2026-11-22T10:00:00+00:00' });

const EXAMPLE_CURSOR = 'eyJ0IjoiMjAyNi0xMS0yMlQxMDowMDowMCswMDowMCIsImlkIjoiYWN0XzNmOWExMmI0NWNkNjdlODkifQ';

/** What every admin list takes: page size, cursor and a time range. */
export const ListQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ format: 'int32', description: `Items per page, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when not given.`, example: DEFAULT_PAGE_SIZE }),
  cursor: z
    .string()
    .max(256, 'is too long to be a cursor')
    .optional()
    .openapi({ description: 'The `next_cursor` of the previous page; leave it out for the first (newest) page. Opaque: pass it back as it is.', example: EXAMPLE_CURSOR }),
  since: instant('Only items at or after this instant (the time the list is ordered by).'),
  until: instant('Only items before this instant.'),
});

/** `data` of a list answer: one page, newest first, and where the next one starts. */
export function pageOf<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item).max(MAX_PAGE_SIZE),
    next_cursor: z
      .string()
      .max(256)
      .regex(/^[A-Za-z0-9_-]+$/)
      .nullable()
      .openapi({ description: 'Pass it as `cursor` for the next (older) page; `null` on the last page. Items added meanwhile never shift later pages: no item is repeated or skipped. Opaque, base64url (only `[A-Za-z0-9_-]`).', example: EXAMPLE_CURSOR }),
  });
}

export const nullableTimestamp = (description: string) => TimestampSchema.nullable().openapi({ description, example: '2026-11-22T10:05:00+00:00' });

/** The time range of a list query as dates. */
export function timeRange(query: { since?: string | undefined; until?: string | undefined }) {
  return { since: query.since ? new Date(query.since) : undefined, until: query.until ? new Date(query.until) : undefined };
}
