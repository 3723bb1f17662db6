import { z } from '@hono/zod-openapi';
import { CODE_APPROVALS, PRECHECK_APPROVALS, SHOWN_PRECHECKS_LIMIT } from '../domain/install-codes/approval.js';
import { MACHINE_ID_SHORT_LENGTH } from '../domain/install-codes/watched-codes.js';
import { InstallCodeIdSchema, TimestampSchema } from './install-code.js';
import { InstallerVersionSchema, ObservedIpSchema, SshFingerprintValueSchema } from './machine.js';

/** DESIGN §14: the person approves the machine. */

export const PrecheckIdSchema = z
  .string()
  .max(19, 'must be pc_ followed by 16 hex characters')
  .regex(/^pc_[0-9a-f]{16}$/, 'must be pc_ followed by 16 hex characters')
  .openapi({
    description:
      'One precheck of a code issued with approval (`pc_` + 16 hex characters), also carried in its precheck token: what the person approves or denies.',
    example: 'pc_9e1f0a7b3c5d2e48',
  });

export const RequireApprovalSchema = z.boolean().openapi({
  description:
    'Whether a machine must wait for the person to approve it on the page before activate can succeed (`APPROVAL_POLICY`: never when `off`, always when `required`).',
  example: true,
});

export const CodeApprovalSchema = z.enum(CODE_APPROVALS).openapi({
  description:
    '`not_required`: issued without approval; `pending`: no decision yet (also after a release restored an approved code); `approved`: the person approved one precheck, whose token alone can activate; `denied`: the person denied a precheck and the code is revoked.',
  example: 'pending',
});

export const PrecheckApprovalSchema = z.enum(PRECHECK_APPROVALS).openapi({
  description:
    "`pending`: awaiting the person's decision; `approved` / `denied`: the precheck the person decided on; `not_chosen`: another precheck of the code was decided on, this one can never activate.",
  example: 'pending',
});

const WatchedPrecheckSchema = z
  .object({
    precheck_id: PrecheckIdSchema,
    precheck_ip: ObservedIpSchema.openapi({
      description:
        'The address the precheck came from, as the service saw it (after `TRUST_PROXY`); null when it could not tell.',
      example: '203.0.113.7',
    }),
    machine_id_short: z
      .string()
      .max(MACHINE_ID_SHORT_LENGTH)
      .regex(/^[0-9a-f]{1,8}$/)
      .openapi({
        description: `The first ${MACHINE_ID_SHORT_LENGTH} characters of the machine id.`,
        example: '4c4c4544',
      }),
    ssh_fingerprint: SshFingerprintValueSchema,
    installer_version: InstallerVersionSchema,
    prechecked_at: TimestampSchema,
    approval: PrecheckApprovalSchema,
  })
  .openapi('WatchedPrecheck', {
    description:
      'A machine that prechecked a code issued with approval. The hostname is not known yet: activate comes after the decision.',
  });

export const WatchedPrechecksSchema = z
  .array(WatchedPrecheckSchema)
  .max(SHOWN_PRECHECKS_LIMIT)
  .openapi({
    description: `The prechecks of a code issued with approval, newest first (at most ${SHOWN_PRECHECKS_LIMIT}); empty for a code issued without. A release that restores the code clears them.`,
  });

export const DecideApprovalRequestSchema = z
  .object({ install_code_id: InstallCodeIdSchema, precheck_id: PrecheckIdSchema })
  .openapi('DecideApprovalRequest');
