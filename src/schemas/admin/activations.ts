import { withEvents } from './object-history.js';
import { OperatorReasonSchema } from './operator-reason.js';
import { z } from '@hono/zod-openapi';
import { TagsSchema, tagFilter } from '../tags.js';
import { ActivationIdSchema, MachineBindingSchema } from '../activation.js';
import { InstallCodeIdSchema, TimestampSchema } from '../install-code.js';
import { InstallerVersionSchema, RequestedRefSchema } from '../machine.js';
import { ServerIdSchema } from '../server.js';
import { ServerHealthSchema } from './servers.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf, searchFilters, textFilter } from './list.js';

const ActivationStatusSchema = z.enum(['activated', 'confirmed', 'released']).openapi('ActivationStatus', {
  description: '`activated` (waiting for confirm or release), `confirmed` (installed), `released` (rolled back).',
});

const EXAMPLE_CURSOR = exampleCursor('act_3f9a12b45cd67e89', '2026-11-22T10:00:00Z');

export const ActivationListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  status: ActivationStatusSchema.optional(),
  ...searchFilters("Part of the hostname, or the start of the activation's id", 'the activated machine'),
  hostname: textFilter('Exact hostname.', 'vpn1.example.net'),
  public_ip: textFilter('Exact public IP, as the installer sent it.', '203.0.113.7'),
  install_code_id: InstallCodeIdSchema.optional(),
  duplicate: z.enum(['true', 'false']).optional().openapi({
    description: '`true`: only the activations flagged as duplicates (`duplicate_of` set); `false`: only the others.',
    example: 'true',
  }),
  ssh_key_proven: z.enum(['true', 'false']).optional().openapi({
    description:
      '`true`: only the activations whose machine proved its SSH host key at activate (DESIGN §24); `false`: only the others.',
    example: 'true',
  }),
  tag: tagFilter(),
});

export const ActivationRecordSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_code_id: InstallCodeIdSchema,
    status: ActivationStatusSchema,
    machine_binding: MachineBindingSchema,
    requested_ref: RequestedRefSchema,
    installer_version: InstallerVersionSchema,
    created_at: TimestampSchema,
    install_token_expires_at: TimestampSchema,
    confirmed_at: nullableTimestamp('When it was confirmed.'),
    released_at: nullableTimestamp('When it was released.'),
    install_code_restored: z.boolean().nullable().openapi({
      description: 'For a released activation, whether its release restored the code; `null` otherwise.',
      example: null,
    }),
    duplicate_of: ActivationIdSchema.nullable().openapi({
      description:
        "Set at activate when this machine's identity was already in use (DESIGN §16, a cloned image): the activation whose `machine_id` it shares with another `ssh_fingerprint`, or whose `ssh_fingerprint` it shares with another `machine_id`, confirmed or with a live server. `null` otherwise. The event `activation.duplicate_detected` records it too.",
      example: null,
    }),
    server: z
      .object({
        server_id: ServerIdSchema,
        status: z.enum(['active', 'revoked']),
        health: ServerHealthSchema,
        last_seen_at: nullableTimestamp('Its last accepted check-in.'),
      })
      .nullable()
      .openapi({ description: 'The server registered for it (`POST /register`); `null` if none was.' }),
    tags: TagsSchema,
  })
  .openapi('ActivationRecord', { description: 'An activation as an operator sees it: never its install token.' });

export const ActivationPageSchema = pageOf(ActivationRecordSchema, EXAMPLE_CURSOR).openapi('ActivationPage');

export const ActivationIdParamsSchema = z.object({
  activation_id: ActivationIdSchema.openapi({ param: { name: 'activation_id', in: 'path' } }),
});

export const OperatorReleaseRequestSchema = z
  .object({
    restore_install_code: z.boolean().default(true).openapi({
      description:
        "`true` (the default): restore the code as the installer's release does, when its token is unused and unexpired and the code unexpired. `false`: revoke the code instead, so it can never be used again.",
      example: true,
    }),
    reason: OperatorReasonSchema,
  })
  .openapi('OperatorReleaseRequest');

export const ActivationWithEventsSchema = withEvents(
  ActivationRecordSchema,
  'ActivationWithEvents',
  'An activation as the list shows it, with its events.',
);
