import { withEvents } from './object-history.js';
import { z } from '@hono/zod-openapi';
import { ActivationIdSchema } from '../activation.js';
import { SHOWN_PRECHECKS_LIMIT } from '../../domain/install-code-approval.js';
import { CodeApprovalSchema, PrecheckApprovalSchema, PrecheckIdSchema } from '../approval.js';
import {
  HostnameValueSchema,
  InstallerVersionSchema,
  MachineIdValueSchema,
  ObservedIpSchema,
  PublicIpValueSchema,
  SshFingerprintValueSchema,
} from '../machine.js';
import { InstallCodeHintSchema, InstallCodeIdSchema, TimestampSchema } from '../install-code.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf, searchFilters, textFilter } from './list.js';

const InstallCodeListStatusSchema = z
  .enum(['issued', 'activated', 'consumed', 'expired', 'revoked'])
  .openapi('InstallCodeListStatus', {
    description:
      '`issued` (usable), `activated` (an activation holds it), `consumed` (confirmed), `expired` (issued, past its expiry), `revoked` (by an operator, cancelled by its browser, or denied by it: `approval` says `denied`).',
  });

const EXAMPLE_CURSOR = exampleCursor('ic_5b2e9f0c81d4a7e3', '2026-11-22T10:00:00Z');

export const InstallCodeListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  status: InstallCodeListStatusSchema.optional(),
  ...searchFilters("the hint or the code's id", 'the machine of an activation that used the code'),
  hint: textFilter('Part of the hint, case-insensitive: e.g. the last group `HX3W8N` the person reads out.', 'HX3W8N'),
});

export const InstallCodeRecordSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    install_code_hint: InstallCodeHintSchema,
    status: InstallCodeListStatusSchema,
    issued_at: TimestampSchema,
    expires_at: TimestampSchema,
    revoked_at: nullableTimestamp('When it was revoked; `null` if it was not.'),
    approval: CodeApprovalSchema,
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
  .openapi('InstallCodeRecord', {
    description: 'An install code as an operator sees it: never the code itself (the service keeps only its hash).',
  });

export const InstallCodePageSchema = pageOf(InstallCodeRecordSchema, EXAMPLE_CURSOR).openapi('InstallCodePage');

export const InstallCodeIdParamsSchema = z.object({
  install_code_id: InstallCodeIdSchema.openapi({ param: { name: 'install_code_id', in: 'path' } }),
});

const OperatorPrecheckSchema = z
  .object({
    precheck_id: PrecheckIdSchema,
    machine_id: MachineIdValueSchema,
    ssh_fingerprint: SshFingerprintValueSchema,
    ip: ObservedIpSchema.openapi({
      description: 'The address the precheck came from (after `TRUST_PROXY`); `null` when the service could not tell.',
      example: '203.0.113.7',
    }),
    installer_version: InstallerVersionSchema,
    prechecked_at: TimestampSchema,
    approval: PrecheckApprovalSchema,
  })
  .openapi('OperatorPrecheck', {
    description: "A precheck of a code issued with approval, and the person's decision on it.",
  });

export const InstallCodeWithEventsSchema = withEvents(
  InstallCodeRecordSchema.extend({
    prechecks: z
      .array(OperatorPrecheckSchema)
      .max(SHOWN_PRECHECKS_LIMIT)
      .openapi({
        description: `The machines that prechecked it, newest first (at most ${SHOWN_PRECHECKS_LIMIT}), each with the person's decision (\`approval\` says where the code stands); empty for a code issued without approval (\`approval\`: \`not_required\`). A release that restores the code clears them.`,
      }),
  }),
  'InstallCodeWithEvents',
  'An install code as the list shows it, with the prechecks the person decides on and its events.',
);
