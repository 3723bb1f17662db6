import { z } from '@hono/zod-openapi';
import { ActivationIdSchema } from '../activation.js';
import { HostnameValueSchema, PublicIpValueSchema } from '../machine.js';
import { InstallCodeHintSchema, InstallCodeIdSchema, TimestampSchema } from '../install-code.js';
import { ListQuerySchema, nullableTimestamp, pageOf } from './list.js';

export const InstallCodeListStatusSchema = z
  .enum(['issued', 'activated', 'consumed', 'expired', 'revoked'])
  .openapi('InstallCodeListStatus', { description: '`issued` (usable), `activated` (an activation holds it), `consumed` (confirmed), `expired` (issued, past its expiry), `revoked` (by an operator, or cancelled by its browser).' });

export const InstallCodeListQuerySchema = ListQuerySchema.extend({
  status: InstallCodeListStatusSchema.optional(),
  hint: z.string().min(1).max(40).optional().openapi({ description: 'Part of the hint, case-insensitive: e.g. the last group `HX3W8N` the person reads out.', example: 'HX3W8N' }),
});

export const InstallCodeRecordSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    install_code_hint: InstallCodeHintSchema,
    status: InstallCodeListStatusSchema,
    issued_at: TimestampSchema,
    expires_at: TimestampSchema,
    revoked_at: nullableTimestamp('When it was revoked; `null` if it was not.'),
    activation: z
      .object({
        activation_id: ActivationIdSchema,
        status: z.enum(['activated', 'confirmed', 'released']).openapi({ example: 'confirmed' }),
        hostname: HostnameValueSchema,
        public_ip: PublicIpValueSchema,
        created_at: TimestampSchema,
      })
      .nullable()
      .openapi({ description: 'The latest activation that used the code; `null` if none did.' }),
  })
  .openapi('InstallCodeRecord', { description: 'An install code as an operator sees it: never the code itself (the service keeps only its hash).' });

export const InstallCodePageSchema = pageOf(InstallCodeRecordSchema).openapi('InstallCodePage');

export const InstallCodeIdParamsSchema = z.object({
  install_code_id: InstallCodeIdSchema.openapi({ param: { name: 'install_code_id', in: 'path' } }),
});
