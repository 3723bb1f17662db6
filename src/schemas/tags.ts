import { z } from '@hono/zod-openapi';
import { FLEET_CODE_MAX_TAGS, TAG_KEY_PATTERN } from '../domain/install-codes/fleet-rules.js';
import type { TagPair } from '../domain/admin-lists/list-query.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from './control-characters.js';

const TAG_KEY_MESSAGE = 'must be 1 to 32 characters of a-z, 0-9, _ . - starting with a letter or digit';

const TagKeySchema = z.string().regex(TAG_KEY_PATTERN, TAG_KEY_MESSAGE);

/**
 * No Unicode format character (category Cf: the bidi controls that reorder what a terminal shows, zero-width
 * characters, the BOM): the command and the console print tags as they are, so a value must read as it is.
 */
const WITHOUT_FORMAT_CHARACTERS = /^\P{Cf}*$/u;

const TagValueSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  .regex(
    WITHOUT_FORMAT_CHARACTERS,
    'must not contain Unicode format characters (bidi controls, zero-width characters)',
  );

/**
 * A fleet code's tags (DESIGN §22), as given at creation: at most 16 `key: value` pairs. A `__proto__` key is
 * refused here, before the record is read: zod leaves that key out of what it answers, which dropped it silently.
 */
export const TagsInputSchema = z
  .preprocess(
    (tags, ctx) => {
      if (typeof tags === 'object' && tags !== null && Object.hasOwn(tags, '__proto__'))
        ctx.addIssue({
          code: 'custom',
          path: ['__proto__'],
          message: `is not a tag key: a key ${TAG_KEY_MESSAGE} (lower case)`,
          input: tags,
        });
      return tags;
    },
    z
      // A key refused is named by its path (`tags.Env`); the validator's own words ("Invalid key in record") say nothing.
      .record(TagKeySchema, TagValueSchema, {
        error: (issue) =>
          issue.code === 'invalid_key' ? `is not a tag key: a key ${TAG_KEY_MESSAGE} (lower case)` : undefined,
      })
      .refine((tags) => Object.keys(tags).length <= FLEET_CODE_MAX_TAGS, {
        message: `must have at most ${FLEET_CODE_MAX_TAGS} tags`,
      }),
  )
  .openapi('Tags', {
    description: `Labels an operator gives a code, copied onto each activation and server it makes: at most ${FLEET_CODE_MAX_TAGS} pairs, key \`[a-z0-9][a-z0-9_.-]{0,31}\`, value 1 to 64 characters without control characters or Unicode format characters (bidi controls, zero-width characters). Every bad pair is 400 \`validation_failed\` naming it, \`__proto__\` included.`,
    example: { env: 'prod', role: 'dns' },
  });

/** Tags as the service answers them: `{}` for a page code and what it made. */
export const TagsSchema = z.record(z.string().max(32), z.string().max(64)).openapi({
  description: 'The tags of the operator code it came from (DESIGN §22): `{}` for a page code and what it made.',
  example: { env: 'prod' },
});

/** `key=value`, as tags are written everywhere (`key:value`, the first spelling, is read the same). */
const TagFilterSchema = z
  .string()
  .max(97, 'must be key=value')
  .regex(/^[a-z0-9][a-z0-9_.-]{0,31}[=:].{1,64}$/, 'must be key=value, such as env=prod')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE);

/** `tag=key=value`, repeatable: all must match. The query answers one value as a string, several as an array. */
export const tagFilter = () =>
  z
    .union([TagFilterSchema, z.array(TagFilterSchema).max(FLEET_CODE_MAX_TAGS)])
    .optional()
    .transform((value): TagPair[] | undefined => {
      if (value === undefined) return undefined;
      // Kept as pairs, not an object: `tag=env:a&tag=env:b` asks for both, which no item holds.
      return (typeof value === 'string' ? [value] : value).map((pair) => {
        // A key holds neither `=` nor `:`, so the first of them ends it.
        const end = pair.search(/[=:]/);
        return [pair.slice(0, end), pair.slice(end + 1)];
      });
    })
    .openapi({
      param: {
        description:
          "Only items whose tags hold this `key=value` pair (the code's tags, copied onto its activations and servers), written as the command's `--tag env=prod` and the console write them (`key:value` is read the same). Repeatable: every pair given must match.",
        example: 'env=prod',
      },
    });
