import { z } from '@hono/zod-openapi';
import { HostnameSchema, InstallerVersionSchema, MachineIdSchema, PublicIpSchema, RequestedRefSchema, SshFingerprintSchema } from './machine.js';
import { InstallCodeHintSchema, InstallCodeInputSchema, InstallCodeSchema, TimestampSchema } from './install-code.js';

const tokenString = (description: string) =>
  z.string().min(1, 'is required').max(4096, 'is too long to be a token').openapi({ description, example: 'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtaW5zdGFsbCtqd3QiLCJraWQiOiJrZXlfMDEifQ.eyJzdWIiOiJhY3RfM2Y5YTEyYjQ1Y2Q2N2U4OSJ9.c2lnbmF0dXJl' });

export const ActivationIdSchema = z
  .string()
  .regex(/^act_[0-9a-f]{16}$/, 'must be act_ followed by 16 hex characters')
  .openapi({ description: 'Activation id: `act_` + 16 hex characters.', example: 'act_3f9a12b45cd67e89' });

export const PrecheckRequestSchema = z
  .object({
    install_code: InstallCodeInputSchema,
    machine_id: MachineIdSchema,
    ssh_fingerprint: SshFingerprintSchema,
    product: z.literal('slowdns', { error: 'must be slowdns' }).openapi({ description: 'The product: always `slowdns`.' }),
    installer_version: InstallerVersionSchema,
  })
  .openapi('PrecheckRequest');

export const PrecheckBindingSchema = z
  .object({ machine_id: z.string(), ssh_fingerprint: z.string() })
  .openapi('PrecheckMachineBinding', { description: 'Echo of the machine identity the precheck token is bound to.' });

export const PrecheckResultSchema = z
  .object({
    install_code: InstallCodeSchema,
    install_code_hint: InstallCodeHintSchema,
    precheck_token: z.string().openapi({ description: 'Signed token (EdDSA JWT) for activate. It never outlives the install code.' }),
    precheck_expires_at: TimestampSchema,
    machine_binding: PrecheckBindingSchema,
  })
  .openapi('PrecheckResult');

export const ActivateRequestSchema = z
  .object({
    install_code: InstallCodeInputSchema,
    precheck_token: tokenString('The precheck token from precheck, for the same code and machine.'),
    hostname: HostnameSchema,
    public_ip: PublicIpSchema,
    machine_id: MachineIdSchema,
    ssh_fingerprint: SshFingerprintSchema,
    requested_ref: RequestedRefSchema,
    installer_version: InstallerVersionSchema,
  })
  .openapi('ActivateRequest');

export const MachineBindingSchema = z
  .object({ hostname: z.string(), public_ip: z.string(), machine_id: z.string(), ssh_fingerprint: z.string() })
  .openapi('MachineBinding', { description: 'The machine the activation is bound to.' });

export const ActivationSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: z.string().openapi({ description: 'Signed single-use token (EdDSA JWT). Confirm consumes it for good.' }),
    install_token_expires_at: TimestampSchema,
    install_code: InstallCodeSchema,
    machine_binding: MachineBindingSchema,
  })
  .openapi('Activation');

export const ConfirmRequestSchema = z
  .object({ activation_id: ActivationIdSchema, install_token: tokenString('The install token activate returned.') })
  .openapi('ConfirmRequest');

export const ConfirmResultSchema = z
  .object({ activation_id: ActivationIdSchema, status: z.literal('confirmed') })
  .openapi('ConfirmResult');

export const ReleaseRequestSchema = z.object({ activation_id: ActivationIdSchema }).openapi('ReleaseRequest');

export const ReleaseResultSchema = z
  .object({
    activation_id: ActivationIdSchema,
    status: z.literal('released'),
    install_code_restored: z.boolean().openapi({ description: 'True when the install code is `issued` again and can be used for a retry.' }),
  })
  .openapi('ReleaseResult');
