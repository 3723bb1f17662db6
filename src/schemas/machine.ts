import { isIP } from 'node:net';
import { z } from '@hono/zod-openapi';
import { INSTALLER_VERSION_PATTERN } from '../domain/activations/installer-version.js';
import { normaliseAddress } from '../domain/client-addresses.js';
import { PADDED_IP_ADDRESS_PATTERN } from './ip-address-pattern.js';

export const MachineIdSchema = z
  .string()
  .max(64, 'is too long to be a machine id')
  .regex(/^\s*[0-9a-f]{32}\s*$/, 'must be the 32 lower-case hex characters of /etc/machine-id')
  .trim()
  .openapi({
    description:
      "Contents of the machine-id file (`/etc/machine-id`): 32 lower-case hex characters; surrounding whitespace (the file's trailing newline) is ignored.",
    example: '4c4c4544003957108052b4c04f384833',
  });

/** The machine id as the service answers it: trimmed. */
export const MachineIdValueSchema = z
  .string()
  .max(32)
  .regex(/^[0-9a-f]{32}$/)
  .openapi({
    description: 'The machine id: 32 lower-case hex characters.',
    example: '4c4c4544003957108052b4c04f384833',
  });

const FINGERPRINT = 'SHA256:[A-Za-z0-9+/]{43}';
const sshFingerprintPattern = new RegExp(`^${FINGERPRINT}$`);

/**
 * Whitespace as JavaScript's `\s` and `trim()` know it, spelled out: a generator reading the documented
 * pattern in another regex dialect (Python's `\s` also takes U+001C to U+001F, its `\d` every script's
 * digits) must make only values this service accepts.
 */
const WHITESPACE = '[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';

/**
 * What `ssh_fingerprint` accepts, documented as it is checked: surrounding whitespace, and either the bare
 * fingerprint or the line `ssh-keygen -lf` prints (`256 SHA256:… comment (ED25519)`: people paste it
 * whole), the key size, whitespace, the fingerprint, then anything after whitespace.
 */
const SSH_FINGERPRINT_INPUT_PATTERN = new RegExp(
  `^${WHITESPACE}*(?:${FINGERPRINT}${WHITESPACE}*|[0-9]{1,5}${WHITESPACE}+${FINGERPRINT}(?:${WHITESPACE}[\\s\\S]*)?)$`,
);

/** The fingerprint an accepted input holds: its first (in a line, the one after the key size). */
const firstFingerprint = new RegExp(FINGERPRINT);
const fingerprintIn = (value: string) => firstFingerprint.exec(value)![0];

export const SshFingerprintSchema = z
  .string()
  .max(1024, 'is too long to be an SSH fingerprint')
  .regex(
    SSH_FINGERPRINT_INPUT_PATTERN,
    'must be SHA256: followed by 43 base64 characters (or the whole line ssh-keygen -lf prints)',
  )
  .transform(fingerprintIn)
  .openapi({
    description:
      "Fingerprint of the machine's SSH host key: `SHA256:` + 43 base64 characters. The whole line `ssh-keygen -lf` prints (`256 SHA256:… root@host (ED25519)`) is accepted too: only the fingerprint is kept, and that is what the answer echoes and the precheck token binds. Surrounding whitespace is ignored. The pattern states every accepted form.",
    example: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
  });

/** The fingerprint as the service answers it. */
export const SshFingerprintValueSchema = z.string().max(50).regex(sshFingerprintPattern).openapi({
  description: 'SSH host key fingerprint: `SHA256:` + 43 base64 characters.',
  example: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
});

export const InstallerVersionSchema = z
  .string()
  .regex(INSTALLER_VERSION_PATTERN, 'must be a dotted date with a trailing counter, like 2026.11.20.1')
  .max(24)
  .openapi({
    description:
      'Version of the installer: a dotted date with a trailing counter. Below `MIN_INSTALLER_VERSION` (when the operator sets one) the answer is 426 `installer_outdated`.',
    example: '2026.11.20.1',
  });

/** At most 253 characters of RFC 1123 labels (1 to 63 letters, digits and inner hyphens); any case, an optional trailing dot, surrounding whitespace forgiven. */
const HOSTNAME_PATTERN =
  /^(?=\s*\S{1,253}\.?\s*$)\s*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?\s*$/;

/** 253 characters, a trailing dot and a newline. */
const HOSTNAME_INPUT_MAX = 255;

export const HostnameSchema = z
  .string()
  .max(HOSTNAME_INPUT_MAX, 'must be at most 253 characters')
  .regex(
    HOSTNAME_PATTERN,
    'must be a hostname (RFC 1123: letters, digits and hyphens in dot-separated labels of 1 to 63 characters)',
  )
  .trim()
  .toLowerCase()
  .transform((h) => h.replace(/\.$/, ''))
  .openapi({
    type: 'string',
    maxLength: HOSTNAME_INPUT_MAX,
    pattern: HOSTNAME_PATTERN.source,
    description:
      "The final hostname the operator confirmed (RFC 1123): dot-separated labels of 1 to 63 letters, digits and hyphens (not at a label's start or end), at most 253 characters. Forgiving: any case, a trailing dot and surrounding whitespace are accepted; it is stored lower-case, without the trailing dot.",
    example: 'vpn1.example.net',
  });

/** The hostname as the service answers it: lower-case, without a trailing dot. */
export const HostnameValueSchema = z
  .string()
  .max(253)
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/)
  .openapi({
    description: 'The hostname: lower-case RFC 1123 labels, without a trailing dot.',
    example: 'vpn1.example.net',
  });

export const ipAddressFormats = {
  anyOf: [
    { type: 'string' as const, maxLength: 15, format: 'ipv4' },
    { type: 'string' as const, maxLength: 45, format: 'ipv6' },
  ],
};

/** What public_ip may be as sent, surrounding whitespace included. */
const PUBLIC_IP_INPUT_MAX = 64;

export const PublicIpSchema = z
  .string()
  .max(PUBLIC_IP_INPUT_MAX, 'must be an IPv4 or IPv6 address')
  .trim()
  .max(45, 'must be an IPv4 or IPv6 address')
  .refine((ip) => !ip.includes('%') && isIP(ip) !== 0, 'must be an IPv4 or IPv6 address (no zone index)')
  .transform(normaliseAddress)
  .openapi({
    type: 'string',
    maxLength: PUBLIC_IP_INPUT_MAX,
    anyOf: [
      ...ipAddressFormats.anyOf,
      {
        type: 'string',
        maxLength: PUBLIC_IP_INPUT_MAX,
        pattern: PADDED_IP_ADDRESS_PATTERN,
        description: 'Either, with surrounding whitespace (ignored).',
      },
    ],
    description:
      'The public IP address the operator confirmed: IPv4 dotted (`203.0.113.7`) or IPv6 (`2001:db8::7`) without a zone index; surrounding whitespace is ignored (`curl -s https://icanhazip.com` ends in a newline), at most 64 characters with it. IPv6 is stored lower-case, and `::ffff:a.b.c.d` as `a.b.c.d`. It is not checked for being globally routable: NAT and lab installs confirm what they see.',
    example: '203.0.113.7',
  });

/** The public IP as the service answers it: normalised. */
export const PublicIpValueSchema = z
  .string()
  .max(45)
  .openapi({
    ...ipAddressFormats,
    description: 'The public IP address: IPv4 dotted or IPv6 lower-case.',
    example: '203.0.113.7',
  });

/** A git ref name: letters, digits and `._/-`, starting with a letter or digit; no `..`, no `//`, not ending in `/`, `.` or `.lock`. */
const REQUESTED_REF_PATTERN = /^(?!.*\.\.)(?!.*\/\/)(?!.*(?:\/|\.|\.lock)$)[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

export const RequestedRefSchema = z
  .string()
  .max(100, 'must be at most 100 characters')
  .regex(
    REQUESTED_REF_PATTERN,
    'must be a git ref name: letters, digits, ".", "_", "-" and "/", starting with a letter or digit, without "..", "//" or a trailing "/", "." or ".lock"',
  )
  .openapi({
    description:
      'Reference (a branch-like name) of the software to install: a git ref name of at most 100 characters: letters, digits, `.`, `_`, `-` and `/`, starting with a letter or digit, without `..` or `//`, not ending in `/`, `.` or `.lock`.',
    example: 'main',
  });

export const ObservedIpSchema = z
  .string()
  .max(45)
  .nullable()
  .openapi({
    anyOf: [...ipAddressFormats.anyOf, { type: 'null' }],
    description:
      'The client address of this request as the service saw it: the socket peer, or with `TRUST_PROXY` the `X-Forwarded-For` entry it believes (IPv4 dotted, IPv6 lower-case; `::ffff:a.b.c.d` as `a.b.c.d`). An installer can offer it as the public IP without asking a third party. Behind NAT or an outbound proxy it is the address the traffic leaves from, not necessarily the one the machine answers on. `null` only when the service could not tell (no socket).',
    example: '203.0.113.7',
  });
