import { z } from '@hono/zod-openapi';
import { ReceiptSchema } from './receipt.js';
import { ActivationIdSchema, EXAMPLE_INSTALL_TOKEN, MachineBindingSchema, tokenInput } from './activation.js';
import { InstallCodeHintSchema, TimestampSchema } from './install-code.js';
import { EXPIRED_READABLE_SECONDS } from '../domain/tokens/install-step-tokens.js';
import { ServerIdSchema } from './server.js';

export const InstallStatusRequestSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: tokenInput(
      `The install token activate returned for this activation. Accepted even once confirm consumed it, and up to ${EXPIRED_READABLE_SECONDS / 86400} days past its expiry: reading back changes nothing.`,
      EXAMPLE_INSTALL_TOKEN,
    ),
  })
  .openapi('InstallStatusRequest');

const nullableTimestamp = (description: string) => TimestampSchema.nullable().openapi({ description });

export const InstallStatusSchema = z
  .object({
    activation_id: ActivationIdSchema,
    status: z.enum(['activated', 'confirmed', 'released']).openapi({
      description:
        '`activated`: waiting for confirm (or release). `confirmed`: done, the install token is consumed. `released`: rolled back; start again with the install code if it was restored, or a new one.',
      example: 'activated',
    }),
    install_code_hint: InstallCodeHintSchema,
    machine_binding: MachineBindingSchema,
    requested_ref: z
      .string()
      .max(100)
      .openapi({ description: 'The `requested_ref` activate was given.', example: 'main' }),
    install_token_expires_at: TimestampSchema,
    install_token_expired: z.boolean().openapi({
      description:
        'True once `install_token_expires_at` has passed: confirm and register refuse the token, and a release can no longer restore the code.',
      example: false,
    }),
    release_restores_code: z.boolean().openapi({
      description:
        'Whether `POST /api/v2/slowdns/install/release` would restore the install code if it were called now: the activation is `activated`, its install token unused and unexpired, and the code itself unexpired.',
      example: true,
    }),
    install_code_restored: z.boolean().nullable().openapi({
      description: 'For a `released` activation, what the release answered; `null` otherwise.',
      example: null,
    }),
    server_registered: z.boolean().openapi({
      description: 'Whether `POST /register` recorded a server for this activation (a release revokes it).',
      example: false,
    }),
    server_id: ServerIdSchema.nullable().openapi({ description: 'The registered server, or `null`.' }),
    created_at: TimestampSchema,
    confirmed_at: nullableTimestamp('When confirm consumed the install token, or `null`.'),
    released_at: nullableTimestamp('When the activation was released, or `null`.'),
    receipt: ReceiptSchema.nullable().openapi({
      description:
        'For a `confirmed` activation, its receipt, as confirm answers it (the same claims, signed by the key signing now: an installer whose confirm answer was lost still gets it); `null` otherwise. See `ConfirmResult.receipt` for its claims and how to verify it.',
    }),
  })
  .openapi('InstallStatus');
