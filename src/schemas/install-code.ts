import { z } from '@hono/zod-openapi';
import { normaliseInstallCode } from '../domain/install-code-format.js';
import { BROWSER_SIGNAL_MAX_LENGTH } from '../domain/browser-fingerprint.js';

export const InstallCodeSchema = z.string().openapi({
  description: 'Shape `<PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX`: the product prefix, the literal `SD` and three groups of 6 Crockford base32 characters.',
  example: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
});

/** What an installer may send: any case, spaces anywhere, O for 0 and I or L for 1 are all forgiven. */
export const InstallCodeInputSchema = z
  .string()
  .max(80, 'is too long to be an install code')
  .transform((value, ctx) => {
    const code = normaliseInstallCode(value);
    if (code === null) {
      ctx.addIssue({ code: 'custom', message: 'must look like <PREFIX>-SD-XXXXXX-XXXXXX-XXXXXX, the code shown on the SlowDNS page' });
      return z.NEVER;
    }
    return code;
  })
  .openapi({
    type: 'string',
    description: 'The install code as the person typed it. Case, spaces or dashes anywhere (or none at all) and Crockford look-alikes (O for 0, I or L for 1) are forgiven.',
    example: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
  });

export const InstallCodeHintSchema = z.string().openapi({
  description: 'Masked form of the code: its start, an ellipsis and the last 6 characters.',
  example: 'SDNS-SD-…HX3W8N',
});

export const TimestampSchema = z.string().openapi({
  format: 'date-time',
  description: 'ISO 8601 timestamp with a numeric UTC offset.',
  example: '2026-11-22T10:15:00+00:00',
});

export const IssuedInstallCodeSchema = z
  .object({
    install_code: InstallCodeSchema,
    install_code_hint: InstallCodeHintSchema,
    expires_at: TimestampSchema,
    ttl_seconds: z.number().int().openapi({ description: 'Lifetime of the code in seconds.', example: 900 }),
  })
  .openapi('IssuedInstallCode');

export const IssueRequestSchema = z
  .object({
    browser_signal: z
      .string()
      .max(BROWSER_SIGNAL_MAX_LENGTH, `must be at most ${BROWSER_SIGNAL_MAX_LENGTH} characters`)
      .optional()
      .openapi({
        description: 'Optional: what the page script knows of the browser (screen, time zone, languages…), as one string. It refines the browser fingerprint the issue limit counts; the service keeps only a hash of it.',
        example: '1920x1080x24|Europe/Berlin|de-DE,en',
      }),
  })
  .openapi('IssueRequest');
