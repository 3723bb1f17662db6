import { z } from '@hono/zod-openapi';
import { PrecheckIdSchema } from './approval.js';
import { ReceiptSchema } from './receipt.js';
import {
  HostnameSchema,
  HostnameValueSchema,
  InstallerVersionSchema,
  MachineIdSchema,
  MachineIdValueSchema,
  ObservedIpSchema,
  PublicIpSchema,
  PublicIpValueSchema,
  RequestedRefSchema,
  SshFingerprintSchema,
  SshFingerprintValueSchema,
} from './machine.js';
import {
  InstallCodeHintSchema,
  InstallCodeIdSchema,
  InstallCodeInputSchema,
  InstallCodeSchema,
  TimestampSchema,
} from './install-code.js';
import { SHELL_SAFE_SENTENCE } from './shell-safe.js';
import {
  bothOrNeither,
  MachineProofPolicySchema,
  ProofChallengeSchema,
  SshHostKeySchema,
  SshKeyProvenSchema,
  SshKeySignatureSchema,
} from './machine-proof.js';

const EXAMPLE_PRECHECK_TOKEN =
  'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtcHJlY2hlY2srand0Iiwia2lkIjoia2V5XzAxIn0.eyJzdWIiOiJTRE5TLVNELSIsImV4cCI6MTc5NTM0MjUwMH0.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2aWNl';
export const EXAMPLE_INSTALL_TOKEN =
  'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtaW5zdGFsbCtqd3QiLCJraWQiOiJrZXlfMDEifQ.eyJzdWIiOiJhY3RfM2Y5YTEyYjQ1Y2Q2N2U4OSJ9.c2lnbmF0dXJl';

/**
 * A token as a client sends it back: bounded, and otherwise the signature check decides (a token that is
 * not one is 401, not 400, so a caller learns nothing from the difference).
 */
export const tokenInput = (description: string, example: string) =>
  z.string().min(1, 'is required').max(4096, 'is too long to be a token').openapi({ description, example });

/** A signed token (JWS compact) as the service issues it: base64url parts joined by dots, only `[A-Za-z0-9._-]`. */
const issuedToken = (description: string, example: string) =>
  z
    .string()
    .max(4096)
    .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    .openapi({
      description: `${description} A JWS compact token: three base64url parts joined by dots. ${SHELL_SAFE_SENTENCE}`,
      example,
    });

export const ActivationIdSchema = z
  .string()
  .max(20, 'must be act_ followed by 16 hex characters')
  .regex(/^act_[0-9a-f]{16}$/, 'must be act_ followed by 16 hex characters')
  .openapi({
    description: `Activation id: \`act_\` + 16 lower-case hex characters. ${SHELL_SAFE_SENTENCE}`,
    example: 'act_3f9a12b45cd67e89',
  });

/** DESIGN §25: a workload identity token, as the platform issued it (a JWT), read from its file. */
const IdentityTokenSchema = z
  .string()
  .min(1, 'is required')
  .max(16_384, 'is too long to be an identity token')
  .openapi({
    description:
      "The platform's signed identity for this machine (an OIDC ID token or a Kubernetes service-account token, a JWT), for a code made with `trust` (DESIGN §25). Sent with `install_code_id` in place of `install_code`.",
    example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL3Rva2VuLmV4YW1wbGUifQ.c2ln',
  });

const CodeIdInputSchema = InstallCodeIdSchema.openapi({
  description:
    "For a code made with `trust` (DESIGN §25): the code's id (`ic_` + 16 hex), which is no secret, in place of `install_code`.",
});

/** Exactly one form: the install code, or the code's id with what proves the machine (the identity token at precheck). */
function oneForm(
  body: { install_code?: unknown; install_code_id?: unknown; identity_token?: unknown },
  ctx: z.RefinementCtx,
  identityField: 'identity_token' | undefined,
) {
  const code = body.install_code !== undefined;
  const id = body.install_code_id !== undefined;
  const identity = identityField === undefined || body[identityField] !== undefined;
  const form = identityField === undefined ? 'install_code_id' : 'install_code_id with identity_token';
  if (code && (id || (identityField !== undefined && body[identityField] !== undefined)))
    ctx.addIssue({ code: 'custom', path: ['install_code'], message: `send install_code or ${form}, not both` });
  else if (!code && !id && !(identityField !== undefined && body[identityField] !== undefined))
    ctx.addIssue({ code: 'custom', path: ['install_code'], message: `is required (or ${form})` });
  else if (!code && id && !identity)
    ctx.addIssue({ code: 'custom', path: [identityField!], message: 'is required with install_code_id' });
  else if (!code && !id)
    ctx.addIssue({ code: 'custom', path: ['install_code_id'], message: `is required with ${identityField}` });
}

/**
 * The form check runs on every object body, also when other fields failed: a 400 names every field
 * missing at once (the code's form among them), not only those zod checked before the refinement.
 */
const everyObjectBody = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
};

export const PrecheckRequestSchema = z
  .object({
    install_code: InstallCodeInputSchema.optional(),
    install_code_id: CodeIdInputSchema.optional(),
    identity_token: IdentityTokenSchema.optional(),
    machine_id: MachineIdSchema,
    ssh_fingerprint: SshFingerprintSchema,
    product: z
      .literal('slowdns', { error: 'must be slowdns' })
      .openapi({ description: 'The product: always `slowdns`.', example: 'slowdns' }),
    installer_version: InstallerVersionSchema,
  })
  .superRefine((body, ctx) => oneForm(body, ctx, 'identity_token'), everyObjectBody)
  .openapi('PrecheckRequest', {
    description:
      'Exactly one form: `install_code`, or (a code made with `trust`, DESIGN §25) `install_code_id` with `identity_token`. Anything else is 400 `validation_failed` naming the fields.',
  });

const PrecheckBindingSchema = z
  .object({ machine_id: MachineIdValueSchema, ssh_fingerprint: SshFingerprintValueSchema })
  .openapi('PrecheckMachineBinding', { description: 'Echo of the machine identity the precheck token is bound to.' });

export const PrecheckResultSchema = z
  .object({
    install_code: InstallCodeSchema.optional().openapi({
      description: `The code as the service reads it. Absent in the answer to an identity precheck, which sent none. ${SHELL_SAFE_SENTENCE}`,
    }),
    install_code_id: InstallCodeIdSchema.optional().openapi({
      description: 'Only in the answer to an identity precheck: the code, for activate.',
    }),
    identity: z
      .object({
        iss: z.string().max(2048).openapi({ example: 'https://token.actions.githubusercontent.com' }),
        sub: z.string().max(1024).openapi({ example: 'repo:example-org/dns:ref:refs/heads/main' }),
      })
      .optional()
      .openapi({
        description: 'Only in the answer to an identity precheck: whom the token named (its issuer and subject).',
        example: {
          iss: 'https://token.actions.githubusercontent.com',
          sub: 'repo:example-org/dns:ref:refs/heads/main',
        },
      }),
    install_code_hint: InstallCodeHintSchema,
    precheck_token: issuedToken(
      'Signed token (EdDSA JWT) for activate. It never outlives the install code.',
      EXAMPLE_PRECHECK_TOKEN,
    ),
    precheck_expires_at: TimestampSchema,
    machine_binding: PrecheckBindingSchema,
    observed_ip: ObservedIpSchema,
    approval: z.enum(['pending', 'approved', 'not_required']).optional().openapi({
      description:
        'Only for a code issued with approval (absent otherwise, and the answer is exactly as it always was: read absent as `not_required`). `pending`: the person who got the code (or, for a fleet code, an operator: `approval_by`) approves this precheck first; activate answers 409 `approval_pending` (with `Retry-After`) until they decide.',
      example: 'pending',
    }),
    approval_by: z.enum(['person', 'operator']).optional().openapi({
      description:
        'Only with `approval`: who decides. `person`: the person who got the code, on the SlowDNS page (`/slowdns`) that issued it. `operator`: an operator of the service, in its console (`/admin`) or with `slowdns codes approve` (a fleet code, DESIGN §22). An installer says so while it waits.',
      example: 'person',
    }),
    precheck_id: PrecheckIdSchema.optional().openapi({
      description:
        'Only for a code issued with approval: this precheck, as the page shows it to the person (also carried in `precheck_token`).',
    }),
    proof_challenge: ProofChallengeSchema,
    machine_proof: MachineProofPolicySchema,
  })
  .openapi('PrecheckResult');

export const ActivateRequestSchema = z
  .object({
    install_code: InstallCodeInputSchema.optional(),
    install_code_id: CodeIdInputSchema.optional(),
    precheck_token: tokenInput(
      'The precheck token from precheck, for the same code and machine.',
      EXAMPLE_PRECHECK_TOKEN,
    ),
    hostname: HostnameSchema,
    public_ip: PublicIpSchema,
    machine_id: MachineIdSchema,
    ssh_fingerprint: SshFingerprintSchema,
    requested_ref: RequestedRefSchema,
    installer_version: InstallerVersionSchema,
    ssh_host_key: SshHostKeySchema.optional(),
    ssh_key_signature: SshKeySignatureSchema.optional(),
  })
  .refine(bothOrNeither, {
    message: 'ssh_host_key and ssh_key_signature are sent together, or neither',
    path: ['ssh_key_signature'],
  })
  .superRefine((body, ctx) => oneForm(body, ctx, undefined), everyObjectBody)
  .openapi('ActivateRequest', {
    description:
      'Exactly one form: `install_code`, or `install_code_id` with a precheck token made by an identity precheck (DESIGN §25). Anything else is 400 `validation_failed` naming the fields.',
  });

export const MachineBindingSchema = z
  .object({
    hostname: HostnameValueSchema,
    public_ip: PublicIpValueSchema,
    machine_id: MachineIdValueSchema,
    ssh_fingerprint: SshFingerprintValueSchema,
    ssh_key_proven: SshKeyProvenSchema,
  })
  .openapi('MachineBinding', { description: 'The machine the activation is bound to.' });

export const ActivationSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: issuedToken(
      'Signed single-use token (EdDSA JWT). Confirm consumes it for good.',
      EXAMPLE_INSTALL_TOKEN,
    ),
    install_token_expires_at: TimestampSchema,
    install_code: InstallCodeSchema.optional().openapi({
      description: `The code as the service reads it. Absent in the answer to an identity activate, which sent none. ${SHELL_SAFE_SENTENCE}`,
    }),
    install_code_id: InstallCodeIdSchema.optional().openapi({
      description: 'Only in the answer to an identity activate: the code it used.',
    }),
    machine_binding: MachineBindingSchema,
    observed_ip: ObservedIpSchema,
    public_ip_matches_observed: z.boolean().openapi({
      description:
        'Whether the confirmed `machine_binding.public_ip` is `observed_ip`. Only information, never a refusal: NAT, an outbound proxy or a machine that installs over another link differ legitimately. An installer may show it so the operator can catch a typo. `false` when `observed_ip` is `null`.',
      example: true,
    }),
  })
  .openapi('Activation');

export const ConfirmRequestSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: tokenInput('The install token activate returned.', EXAMPLE_INSTALL_TOKEN),
  })
  .openapi('ConfirmRequest');

export const ConfirmResultSchema = z
  .object({
    activation_id: ActivationIdSchema,
    status: z.literal('confirmed').openapi({ example: 'confirmed' }),
    receipt: ReceiptSchema,
  })
  .openapi('ConfirmResult');

export const ReleaseRequestSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: tokenInput(
      'The install token activate returned for this activation: the proof that the caller is the installer. Its expiry does not matter here. Without it, the request must come from the address (the same IPv4 address, or the same IPv6 /64) that activate or precheck came from, unless `RELEASE_REQUIRES_TOKEN=true`.',
      EXAMPLE_INSTALL_TOKEN,
    ).optional(),
  })
  .openapi('ReleaseRequest');

export const ReleaseResultSchema = z
  .object({
    activation_id: ActivationIdSchema,
    status: z.literal('released').openapi({ example: 'released' }),
    install_code_restored: z.boolean().openapi({
      description:
        'True when the install code is `issued` again and can be used for a retry; for an operator code with `uses` > 1, when this use went back to the code (which is still `issued` and unexpired).',
      example: true,
    }),
  })
  .openapi('ReleaseResult');
