import { withEvents } from './object-history.js';
import { z } from '@hono/zod-openapi';
import { TrustSchema } from './trust.js';
import { ActivationIdSchema } from '../activation.js';
import { CodeApprovalSchema, PrecheckApprovalSchema, PrecheckIdSchema } from '../approval.js';
import {
  HostnameValueSchema,
  InstallerVersionSchema,
  MachineIdValueSchema,
  ObservedIpSchema,
  PublicIpValueSchema,
  SshFingerprintValueSchema,
} from '../machine.js';
import { SHOWN_PRECHECKS_LIMIT } from '../../domain/install-codes/approval.js';
import {
  FLEET_CODE_MAX_CIDRS,
  FLEET_CODE_MAX_USES,
  SHOWN_CODE_ACTIVATIONS_LIMIT,
} from '../../domain/install-codes/fleet-rules.js';
import { TagsSchema, tagFilter } from '../tags.js';
import { UsesSchema } from './fleet-codes.js';
import { InstallCodeHintSchema, InstallCodeIdSchema, TimestampSchema } from '../install-code.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf, searchFilters, textFilter } from './list.js';

const InstallCodeListStatusSchema = z
  .enum(['issued', 'activated', 'consumed', 'exhausted', 'expired', 'revoked'])
  .openapi('InstallCodeListStatus', {
    description:
      '`issued` (usable), `activated` (an activation holds it), `consumed` (confirmed), `exhausted` (a code with `uses` > 1 none of whose uses is free: each is spent or held), `expired` (issued, past its expiry), `revoked` (by an operator, cancelled by its browser, or denied by it: `approval` says `denied`).',
  });

const EXAMPLE_CURSOR = exampleCursor('ic_5b2e9f0c81d4a7e3', '2026-11-22T10:00:00Z');

export const InstallCodeListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  status: InstallCodeListStatusSchema.optional(),
  ...searchFilters(
    "Part of the hint, or the start of the code's id",
    'the machine of an activation that used the code',
  ),
  hint: textFilter('Part of the hint, case-insensitive: e.g. the last group `HX3W8N` the person reads out.', 'HX3W8N'),
  tag: tagFilter(),
});

const CodeActivationSchema = z
  .object({
    activation_id: ActivationIdSchema,
    status: z.enum(['activated', 'confirmed', 'released']).openapi({ example: 'confirmed' }),
    hostname: HostnameValueSchema,
    public_ip: PublicIpValueSchema,
    created_at: TimestampSchema,
  })
  .openapi('InstallCodeActivation');

const useCount = (description: string) =>
  z.number().int().min(0).max(FLEET_CODE_MAX_USES).openapi({ format: 'int32', description, example: 1 });

export const InstallCodeRecordSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    install_code_hint: InstallCodeHintSchema,
    status: InstallCodeListStatusSchema,
    issued_at: TimestampSchema,
    expires_at: TimestampSchema,
    revoked_at: nullableTimestamp('When it was revoked; `null` if it was not.'),
    approval: CodeApprovalSchema,
    activation: CodeActivationSchema.nullable().openapi({
      description: 'The latest activation that used the code; `null` if none did.',
    }),
    uses: UsesSchema,
    uses_spent: useCount('Uses spent: activations confirmed.'),
    uses_held: useCount(
      'Uses held: activations waiting for confirm whose install token has not expired or whose server is active (an abandoned install gives its use back when its token expires, unless its agent lives on).',
    ),
    last_used_at: nullableTimestamp('When an activation last took a use; `null` if none did.'),
    tags: TagsSchema,
    description: z
      .string()
      .max(200)
      .nullable()
      .openapi({ description: 'What the operator said the code is for; `null` for a page code.', example: null }),
    issued_by: z.enum(['page', 'operator']).openapi({
      description: '`page`: a person got it on the SlowDNS page; `operator`: issued through `createInstallCode`.',
      example: 'page',
    }),
    allowed_cidrs: z
      .array(z.string().max(43))
      .max(FLEET_CODE_MAX_CIDRS)
      .nullable()
      .openapi({ description: 'The networks the code is bound to; `null` when it is bound to none.', example: null }),
    hostname_pattern: z
      .string()
      .max(253)
      .nullable()
      .openapi({ description: 'The host names the code enrolls; `null` for any.', example: null }),
    require_machine_proof: z.boolean().openapi({
      description:
        'Only machines that prove their SSH host key at activate (DESIGN §24) may use it; `false` for a page code, which follows `MACHINE_PROOF`.',
      example: false,
    }),
    trust: TrustSchema.nullable().openapi({
      description:
        'The workload identity the code trusts in place of a secret (DESIGN §25); `null` for a code used with its secret.',
    }),
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
    description:
      "A precheck of a code issued with approval, and the decision on it: the person's for a page code, an operator's for a code an operator issued (each precheck of a code with `uses` > 1 decided on its own).",
  });

export const InstallCodeWithEventsSchema = withEvents(
  InstallCodeRecordSchema.extend({
    activations: z
      .array(CodeActivationSchema)
      .max(SHOWN_CODE_ACTIVATIONS_LIMIT)
      .openapi({
        description: `The activations the code made, newest first (at most ${SHOWN_CODE_ACTIVATIONS_LIMIT}); a page code has at most one at a time.`,
      }),
    prechecks: z
      .array(OperatorPrecheckSchema)
      .max(SHOWN_PRECHECKS_LIMIT)
      .openapi({
        description: `The machines that prechecked it, newest first (at most ${SHOWN_PRECHECKS_LIMIT}), each with the decision on it (\`approval\` says where the code stands); empty for a code issued without approval (\`approval\`: \`not_required\`). A release that restores a page code clears them. A code an operator issued with \`require_approval\` and \`uses\` > 1: each \`pending\` one is approved or denied on its own with \`approveFleetPrecheck\` / \`denyFleetPrecheck\`; every one waiting, not only those shown here, is listed by \`listPendingPrechecks\`.`,
      }),
    pending_prechecks: z.number().int().min(0).max(2147483647).openapi({
      format: 'int32',
      description:
        'How many machines wait on a decision about the code: all of them, shown in `prechecks` or not (`listPendingPrechecks` pages through them). 0 for a code issued without approval, and for a `uses: 1` code once decided.',
      example: 1,
    }),
  }),
  'InstallCodeWithEvents',
  'An install code as the list shows it, with its activations, its prechecks and their decisions, and its events.',
);

const PRECHECK_CURSOR = exampleCursor('pc_5e8b0c2d4f6a7b9c', '2026-11-22T10:00:00Z');

export const PendingPrecheckQuerySchema = listQuerySchema(PRECHECK_CURSOR).pick({ limit: true, cursor: true });

export const PendingPrecheckPageSchema = pageOf(OperatorPrecheckSchema, PRECHECK_CURSOR).openapi('PendingPrecheckPage');
