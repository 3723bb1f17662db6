import { z } from '@hono/zod-openapi';
import { toIsoOffset } from '../clock.js';
import { CodeApprovalSchema, RequireApprovalSchema, WatchedPrechecksSchema } from './approval.js';
import {
  MACHINE_ID_SHORT_LENGTH,
  WATCHED_CODES_LIMIT,
  WATCHED_STATUSES,
  type WatchedInstallCode,
} from '../domain/install-codes/watched-codes.js';
import {
  HostnameValueSchema,
  ipAddressFormats,
  ObservedIpSchema,
  PublicIpValueSchema,
  SshFingerprintValueSchema,
} from './machine.js';
import { InstallCodeHintSchema, InstallCodeIdSchema, TimestampSchema } from './install-code.js';

const nullableTimestamp = (description: string) => TimestampSchema.nullable().openapi({ description, example: null });

const WatchedMachineSchema = z
  .object({
    hostname: HostnameValueSchema.nullable().openapi({
      description: 'The hostname the operator confirmed at activate; null after a precheck only.',
      example: 'vpn1.example.net',
    }),
    public_ip: PublicIpValueSchema.nullable().openapi({
      anyOf: [...ipAddressFormats.anyOf, { type: 'null' }],
      description: 'The public IP the operator confirmed at activate; null after a precheck only.',
      example: '203.0.113.7',
    }),
    machine_id_short: z
      .string()
      .max(MACHINE_ID_SHORT_LENGTH)
      .regex(/^[0-9a-f]{1,8}$/)
      .openapi({
        description: `The first ${MACHINE_ID_SHORT_LENGTH} characters of the machine id: enough to recognise the machine, not all of it.`,
        example: '4c4c4544',
      }),
    ssh_fingerprint: SshFingerprintValueSchema,
  })
  .openapi('WatchedMachine', {
    description:
      "The machine that used the code last: the activation's, or the precheck's while no activation tells more.",
  });

export const WatchedInstallCodeSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    install_code_hint: InstallCodeHintSchema,
    status: z.enum(WATCHED_STATUSES).openapi({
      description: [
        'What became of the code:',
        '`issued`: waiting for an installer;',
        '`prechecked`: a machine checked it (`machine` says which) and has not activated it yet;',
        '`activated`: an install is running on `machine`;',
        '`confirmed`: installed on `machine` (final);',
        '`released`: the install on `machine` failed and was rolled back; `usable` says whether the code was restored and can be entered again;',
        '`expired`: it can no longer be used (final);',
        '`revoked`: cancelled by this browser or by an operator (final).',
      ].join(' '),
      example: 'activated',
    }),
    usable: z.boolean().openapi({
      description: 'Whether an installer can still enter the code: it is issued (or restored) and unexpired.',
      example: false,
    }),
    issued_at: TimestampSchema,
    expires_at: TimestampSchema,
    machine: WatchedMachineSchema.nullable(),
    precheck_ip: ObservedIpSchema.openapi({
      description:
        'The address the last precheck came from, as the service saw it (after `TRUST_PROXY`); null when none since the code was issued or restored, or when the service could not tell.',
      example: '203.0.113.7',
    }),
    prechecked_at: nullableTimestamp('The last precheck since the code was issued or restored.'),
    activated_at: nullableTimestamp('When the current (or last released) activation was made.'),
    confirmed_at: nullableTimestamp('When the install was confirmed.'),
    released_at: nullableTimestamp('When the last activation was released.'),
    revoked_at: nullableTimestamp('When the code was cancelled (or revoked by an operator).'),
    require_approval: RequireApprovalSchema,
    approval: CodeApprovalSchema,
    prechecks: WatchedPrechecksSchema,
    identity_in_use: z.boolean().openapi({
      description:
        'True when the machine that activated the code has an identity (machine id or SSH host key) another installed server already holds, as a cloned image does. The operator sees which; this never says where.',
      example: false,
    }),
  })
  .openapi('WatchedInstallCode', {
    description: 'One install code this browser session issued. Never the code itself, never a token.',
  });

export const WatchedInstallCodesSchema = z
  .object({
    items: z
      .array(WatchedInstallCodeSchema)
      .max(WATCHED_CODES_LIMIT)
      .openapi({ description: `Newest first; at most ${WATCHED_CODES_LIMIT}.` }),
  })
  .openapi('WatchedInstallCodes');

const iso = (date: Date | null) => (date ? toIsoOffset(date) : null);

export function watchedInstallCodeJson(code: WatchedInstallCode): z.infer<typeof WatchedInstallCodeSchema> {
  return {
    install_code_id: code.id,
    install_code_hint: code.hint,
    status: code.status,
    usable: code.usable,
    issued_at: toIsoOffset(code.issuedAt),
    expires_at: toIsoOffset(code.expiresAt),
    machine: code.machine && {
      hostname: code.machine.hostname,
      public_ip: code.machine.publicIp,
      machine_id_short: code.machine.machineIdShort,
      ssh_fingerprint: code.machine.sshFingerprint,
    },
    precheck_ip: code.precheckIp,
    prechecked_at: iso(code.precheckedAt),
    activated_at: iso(code.activatedAt),
    confirmed_at: iso(code.confirmedAt),
    released_at: iso(code.releasedAt),
    revoked_at: iso(code.revokedAt),
    identity_in_use: code.identityInUse,
    require_approval: code.requireApproval,
    approval: code.approval,
    prechecks: code.prechecks.map((p) => ({
      precheck_id: p.id,
      precheck_ip: p.ip,
      machine_id_short: p.machineIdShort,
      ssh_fingerprint: p.sshFingerprint,
      installer_version: p.installerVersion,
      prechecked_at: toIsoOffset(p.precheckedAt),
      approval: p.approval,
    })),
  };
}

export const CancelInstallCodeRequestSchema = z
  .object({ install_code_id: InstallCodeIdSchema })
  .openapi('CancelInstallCodeRequest');

/** A code a machine prechecked and whose browser then cancelled it: the examples of the routes that answer one code. */
export const EXAMPLE_PRECHECKED_CODE = {
  install_code_id: 'ic_5b2e9f0c81d4a7e3',
  install_code_hint: 'SDNS-SD-…HX3W8N',
  status: 'revoked',
  usable: false,
  issued_at: '2026-11-22T10:00:00+00:00',
  expires_at: '2026-11-22T10:15:00+00:00',
  machine: {
    hostname: null,
    public_ip: null,
    machine_id_short: '4c4c4544',
    ssh_fingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
  },
  precheck_ip: '198.51.100.4',
  prechecked_at: '2026-11-22T10:02:10+00:00',
  activated_at: null,
  confirmed_at: null,
  released_at: null,
  revoked_at: '2026-11-22T10:02:40+00:00',
  identity_in_use: false,
  require_approval: false,
  approval: 'not_required',
  prechecks: [],
} as const satisfies z.infer<typeof WatchedInstallCodeSchema>;
