import { isIP } from 'node:net';
import { z } from '@hono/zod-openapi';
import { INSTALLER_VERSION_PATTERN } from '../domain/installer-version.js';
import { normaliseAddress } from '../http/client-address.js';

export const MachineIdSchema = z
  .string()
  .trim()
  .regex(/^[0-9a-f]{32}$/, 'must be the 32 lower-case hex characters of /etc/machine-id')
  .openapi({ description: 'Contents of the machine-id file (`/etc/machine-id`): 32 lower-case hex characters; surrounding whitespace is ignored.', example: '4c4c4544003957108052b4c04f384833' });

export const SshFingerprintSchema = z
  .string()
  .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be SHA256: followed by 43 base64 characters')
  .openapi({ description: 'Fingerprint of the machine\'s SSH host key as `ssh-keygen -lf` prints it: `SHA256:` + 43 base64 characters.', example: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8' });

export const InstallerVersionSchema = z
  .string()
  .regex(INSTALLER_VERSION_PATTERN, 'must be a dotted date with a trailing counter, like 2026.11.20.1')
  .openapi({ description: 'Version of the installer: a dotted date with a trailing counter. Below `MIN_INSTALLER_VERSION` (when the operator sets one) the answer is 426 `installer_outdated`.', example: '2026.11.20.1' });

const hostnameLabel = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export const HostnameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, 'must be at most 253 characters')
  .transform((h) => h.replace(/\.$/, ''))
  .refine((h) => h.length > 0 && h.split('.').every((label) => hostnameLabel.test(label)), 'must be a hostname (RFC 1123: letters, digits and hyphens in dot-separated labels of 1 to 63 characters)')
  .openapi({ description: 'The final hostname the operator confirmed (RFC 1123). Stored lower-case, without a trailing dot.', example: 'vpn1.example.net', type: 'string' });

export const PublicIpSchema = z
  .string()
  .trim()
  .max(45, 'must be an IPv4 or IPv6 address')
  .refine((ip) => !ip.includes('%') && isIP(ip) !== 0, 'must be an IPv4 or IPv6 address (no zone index)')
  .transform(normaliseAddress)
  .openapi({
    type: 'string',
    description: 'The public IP address the operator confirmed: IPv4 dotted (`203.0.113.7`) or IPv6 (`2001:db8::7`, stored lower-case; `::ffff:a.b.c.d` is stored as `a.b.c.d`). It is not checked for being globally routable: NAT and lab installs confirm what they see.',
    example: '203.0.113.7',
  });

export const RequestedRefSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/, 'must be a branch-like name of letters, digits, ".", "_", "-" and "/"')
  .refine((r) => !r.includes('..') && !r.includes('//') && !r.endsWith('/') && !r.endsWith('.') && !r.endsWith('.lock'), 'must be a valid git ref name')
  .openapi({ description: 'Reference (a branch-like name) of the software to install: a git ref name of at most 100 characters.', example: 'main', type: 'string' });
