import { z } from '@hono/zod-openapi';
import { normaliseInstallCode } from '../domain/install-codes/code-format.js';
import { BROWSER_SIGNAL_MAX_LENGTH } from '../domain/browser-sessions/fingerprint.js';
import { SHELL_SAFE_SENTENCE } from './shell-safe.js';

export const InstallCodeSchema = z
  .string()
  .max(32)
  .regex(/^[A-Z0-9]{2,8}-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/)
  .openapi({
    description: `Shape \`<PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX\`: the product prefix (2 to 8 upper-case letters or digits), the literal \`SD\` and three groups of 6 Crockford base32 characters (\`0-9\` and \`A-Z\` without I, L, O, U). ${SHELL_SAFE_SENTENCE}`,
    example: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
  });

/**
 * What a person may type for a code: letters and digits (also full-width ones, as an input method
 * writes them), with whitespace, zero-width characters, dashes of any kind, `_` and `.` anywhere.
 * The pattern admits every spelling the normalisation forgives; the normalisation then decides.
 */
const INSTALL_CODE_INPUT_PATTERN =
  /^[0-9A-Za-z\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A\s\u200B-\u200D\u2060\uFEFF\u2010-\u2015\u2212\uFE58\uFE63\uFF0D\uFF0E\uFF3F_.-]{22,80}$/;
const INSTALL_CODE_SHAPE_MESSAGE =
  'must look like <PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX, the code shown on the SlowDNS page';

/** What an installer may send: any case, spaces anywhere, O for 0 and I or L for 1 are all forgiven. */
export const InstallCodeInputSchema = z
  .string()
  .max(80, 'is too long to be an install code')
  .regex(INSTALL_CODE_INPUT_PATTERN, INSTALL_CODE_SHAPE_MESSAGE)
  .transform((value, ctx) => {
    const code = normaliseInstallCode(value);
    if (code === null) {
      ctx.addIssue({ code: 'custom', message: INSTALL_CODE_SHAPE_MESSAGE });
      return z.NEVER;
    }
    return code;
  })
  .openapi({
    type: 'string',
    minLength: 22,
    maxLength: 80,
    pattern: INSTALL_CODE_INPUT_PATTERN.source,
    description:
      'The install code as the person typed it, forgiven: any case; whitespace, zero-width characters, dashes of any kind, `_` or `.` anywhere (or no separator at all); full-width letters and digits; Crockford look-alikes (O for 0, I or L for 1). The pattern admits these spellings; what is left after removing the separators must be the prefix, `SD` and 18 Crockford base32 characters.',
    example: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
  });

export const InstallCodeHintSchema = z
  .string()
  .max(19)
  .regex(/^[A-Z0-9]{2,8}-SD-…[0-9A-HJKMNP-TV-Z]{6}$/)
  .openapi({
    description: 'Masked form of the code: its start, an ellipsis (U+2026) and the last 6 characters.',
    example: 'SDNS-SD-…HX3W8N',
  });

/** Every timestamp of the service: whole seconds, UTC, written with a numeric offset. */
export const TimestampSchema = z
  .string()
  .max(25)
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00$/)
  .openapi({
    format: 'date-time',
    description: 'ISO 8601 timestamp in whole seconds, UTC, with the numeric offset `+00:00`.',
    example: '2026-11-22T10:15:00+00:00',
  });

export const InstallCodeIdSchema = z
  .string()
  .max(19, 'must be ic_ followed by 16 hex characters')
  .regex(/^ic_[0-9a-f]{16}$/, 'must be ic_ followed by 16 hex characters')
  .openapi({
    description:
      "The install code's public handle (`ic_` + 16 hex characters): it names the code in events and operator routes, and is not the code.",
    example: 'ic_5b2e9f0c81d4a7e3',
  });

export const IssuedInstallCodeSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    install_code: InstallCodeSchema,
    install_code_hint: InstallCodeHintSchema,
    expires_at: TimestampSchema,
    ttl_seconds: z.number().int().min(1).max(604_800).openapi({
      format: 'int32',
      description: 'Lifetime of the code in seconds (`INSTALL_CODE_TTL_SECONDS`).',
      example: 900,
    }),
    require_approval: z.boolean().openapi({
      description:
        'Whether a machine waits for this browser to approve it before activate can succeed (DESIGN §14): asked for with `require_approval`, always under `APPROVAL_POLICY=required`, never under `off`.',
      example: false,
    }),
  })
  .openapi('IssuedInstallCode');

export const IssueRequestSchema = z
  .object({
    browser_signal: z
      .string()
      .max(BROWSER_SIGNAL_MAX_LENGTH, `must be at most ${BROWSER_SIGNAL_MAX_LENGTH} characters`)
      .optional()
      .openapi({
        description:
          'Optional: what the page script knows of the browser (screen, time zone, languages…), as one string. It refines the browser fingerprint the issue limit counts; the service keeps only a hash of it.',
        example: '1920x1080x24|Europe/Berlin|de-DE,en',
      }),
    require_approval: z.boolean().optional().openapi({
      description:
        "Optional: `true` asks that every machine wait for this browser's approval on the page (`POST /api/v2/slowdns/code/approve`) before it can activate. Ignored under `APPROVAL_POLICY=off`; under `required` every code waits, whatever this says.",
      example: true,
    }),
  })
  .openapi('IssueRequest');
