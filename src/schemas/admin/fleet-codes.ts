import { z } from '@hono/zod-openapi';
import {
  HOSTNAME_PATTERN_PATTERN,
  FLEET_CODE_MAX_CIDRS,
  FLEET_CODE_MAX_TTL_SECONDS,
  FLEET_CODE_MAX_USES,
  FLEET_CODE_MIN_TTL_SECONDS,
  FLEET_CODE_WIDEST_PREFIX,
} from '../../domain/install-codes/fleet-rules.js';
import { PrecheckIdSchema } from '../approval.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';
import { InstallCodeHintSchema, InstallCodeIdSchema, InstallCodeSchema, TimestampSchema } from '../install-code.js';
import { parseNetwork } from '../ip-network.js';
import { TagsInputSchema, TagsSchema } from '../tags.js';
import { OperatorReasonSchema } from './operator-reason.js';
import { TRUST_CODE_MAX_TTL_SECONDS } from '../../domain/identity/trust-block.js';
import { TrustInputSchema, TrustSchema } from './trust.js';

/** DESIGN §22: codes an operator issues for a fleet. */

export const UsesSchema = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(FLEET_CODE_MAX_USES, `must be at most ${FLEET_CODE_MAX_USES}`)
  .openapi({
    format: 'int32',
    description: `How many machines the code may enroll, 1 to ${FLEET_CODE_MAX_USES}: each is one activation with its own install token. A use is held by an activation waiting for confirm (until its install token expires, or while the server it registered is active), given back by release, spent at confirm.`,
    example: 50,
  });

const AllowedCidrSchema = z
  .string()
  .max(43, 'must be a network in CIDR notation')
  .transform((value, ctx) => {
    const parsed = parseNetwork(value);
    if ('problem' in parsed) {
      ctx.issues.push({ code: 'custom', message: parsed.problem, input: value });
      return z.NEVER;
    }
    const widest = FLEET_CODE_WIDEST_PREFIX[parsed.kind];
    if (parsed.prefix < widest) {
      ctx.issues.push({
        code: 'custom',
        message: `must be a /${widest} or narrower ${parsed.kind === 'ipv4' ? 'IPv4' : 'IPv6'} network`,
        input: value,
      });
      return z.NEVER;
    }
    return parsed.network;
  })
  .openapi({ type: 'string', maxLength: 43, example: '203.0.113.0/24' });

const HostnamePatternSchema = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(HOSTNAME_PATTERN_PATTERN, 'must be a lowercase host name whose leftmost label may be *')
  .openapi({
    description:
      'A lowercase host name whose leftmost label may be `*`, matching exactly one label, compared without case: `*.prod.example.com` matches `db1.prod.example.com`, not `a.b.prod.example.com`. Activate of another host name is 403 `install_code_hostname_not_allowed`. The installer supplies the host name: this stops mistakes, not attackers.',
    example: '*.prod.example.com',
  });

const DescriptionSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  .openapi({ description: 'What the code is for, 1 to 200 characters.', example: 'prod DNS fleet, November' });

export const CreateInstallCodeRequestSchema = z
  .object({
    uses: UsesSchema.default(1),
    ttl_seconds: z
      .number()
      .int('must be a whole number')
      .min(FLEET_CODE_MIN_TTL_SECONDS, `must be at least ${FLEET_CODE_MIN_TTL_SECONDS}`)
      .max(
        TRUST_CODE_MAX_TTL_SECONDS,
        `must be at most ${FLEET_CODE_MAX_TTL_SECONDS} (30 days), or ${TRUST_CODE_MAX_TTL_SECONDS} (365 days) with trust`,
      )
      .optional()
      .openapi({
        format: 'int32',
        description: `Seconds until the code expires, ${FLEET_CODE_MIN_TTL_SECONDS} to ${FLEET_CODE_MAX_TTL_SECONDS} (30 days), or up to ${TRUST_CODE_MAX_TTL_SECONDS} (365 days) for a code with \`trust\`, which has no secret to leak; \`INSTALL_CODE_TTL_SECONDS\` when not given.`,
        example: 604800,
      }),
    description: DescriptionSchema.optional(),
    tags: TagsInputSchema.optional(),
    allowed_cidrs: z
      .array(AllowedCidrSchema)
      .min(1, 'must name at least one network, or be left out')
      .max(FLEET_CODE_MAX_CIDRS, `must have at most ${FLEET_CODE_MAX_CIDRS} networks`)
      .optional()
      .openapi({
        description: `At most ${FLEET_CODE_MAX_CIDRS} networks (no address bits after the prefix; IPv4 /8 or narrower, IPv6 /32 or narrower): the address seen at precheck and activate (after \`TRUST_PROXY\`, so only as strong as it) must be inside one, else 403 \`install_code_address_not_allowed\`. Inside them, a code with \`uses\` > 1 counts in its own limits (600 prechecks and 60 activations a minute) instead of the per-address ones.`,
        example: ['203.0.113.0/24'],
      }),
    hostname_pattern: HostnamePatternSchema.optional(),
    require_approval: z.boolean().default(false).openapi({
      description:
        'Each machine waits (409 `approval_pending`) until an operator approves its precheck (`approveFleetPrecheck`); a denied precheck is 403 `approval_denied`, and the code stays usable for others.',
      example: false,
    }),
    require_machine_proof: z.boolean().optional().openapi({
      description:
        'Each machine must prove its SSH host key at activate (DESIGN §24): its precheck answers `machine_proof: "required"`, and an activate without `ssh_host_key` and `ssh_key_signature` is 403 `machine_proof_required`, whatever `MACHINE_PROOF` says.',
      example: false,
    }),
    trust: TrustInputSchema.optional(),
    reason: OperatorReasonSchema,
  })
  .superRefine((body, ctx) => {
    if (body.trust === undefined && body.ttl_seconds !== undefined && body.ttl_seconds > FLEET_CODE_MAX_TTL_SECONDS)
      ctx.addIssue({
        code: 'custom',
        path: ['ttl_seconds'],
        message: `must be at most ${FLEET_CODE_MAX_TTL_SECONDS} (30 days) for a code without trust`,
      });
  })
  .openapi('CreateInstallCodeRequest');

export const CreatedInstallCodeSchema = z
  .object({
    install_code: InstallCodeSchema.nullable().openapi({
      description:
        'The code, shown this once; `null` for a code with `trust` (DESIGN §25), which has no usable secret: machines send `install_code_id` with their identity token.',
    }),
    install_code_id: InstallCodeIdSchema,
    install_code_hint: InstallCodeHintSchema,
    uses: UsesSchema,
    expires_at: TimestampSchema,
    trust: TrustSchema.nullable().optional().openapi({
      description:
        'The workload identity the code trusts in place of a secret; absent for a code used with its secret.',
    }),
    ttl_seconds: z.number().int().min(FLEET_CODE_MIN_TTL_SECONDS).max(TRUST_CODE_MAX_TTL_SECONDS).openapi({
      format: 'int32',
      example: 604800,
    }),
    tags: TagsSchema,
    require_approval: z.boolean().openapi({ example: false }),
    warnings: z.array(z.string().max(400)).max(4).openapi({
      description:
        'What to know before handing the code out, e.g. a code with `uses` > 1 bound to neither `allowed_cidrs` nor `require_approval`: anyone who reads it (cloud-init user-data is readable through the metadata service) enrolls that many machines. Empty when there is nothing to say.',
      example: [],
    }),
  })
  .openapi('CreatedInstallCode', {
    description: 'The code, shown this once: the service keeps only its hash.',
  });

export const PrecheckDecisionParamsSchema = z.object({
  install_code_id: InstallCodeIdSchema.openapi({ param: { name: 'install_code_id', in: 'path' } }),
  precheck_id: PrecheckIdSchema.openapi({ param: { name: 'precheck_id', in: 'path' } }),
});

export const PrecheckDecisionSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    precheck_id: PrecheckIdSchema,
    decision: z.enum(['approved', 'denied']).openapi({ example: 'approved' }),
    decided_at: TimestampSchema,
  })
  .openapi('PrecheckDecision', { description: "An operator's decision on one precheck of a code." });
