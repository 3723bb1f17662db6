import { z } from '@hono/zod-openapi';

/** An RSA key of 8,192 bits is some 1,400 base64 characters; a comment may follow. */
const HOST_KEY_MAX = 4096;
/** An RSA-8192 signature with its key is some 3,000 characters armored. */
const SIGNATURE_MAX = 8192;

const EXAMPLE_HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIFZ4vKEKO5fo7skLPqMCqXYY8iEV4pLWZ4dUg8OhhU7 root@vpn1';
const EXAMPLE_SIGNATURE = `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAggVni8oQo7l+juyQs+owKpdhjyI
RXiktZnh1SDw6GFTsAAAAQc2xvd2Rucy1hY3RpdmF0ZQAAAAAAAAAGc2hhNTEyAAAAUwAA
AAtzc2gtZWQyNTUxOQAAAEDfF+dYRMpbj0OihqlNy5wkxxspeopkP+KPD8v9xX3URmYVhP
yjM+AOrCicbTcoM77xZGnoiXr7BRiEiYVlWe0A
-----END SSH SIGNATURE-----`;

export const SshHostKeySchema = z.string().max(HOST_KEY_MAX, 'is too long to be an SSH public key line').openapi({
  description:
    "The machine's SSH host public key, one OpenSSH public key line as in `/etc/ssh/ssh_host_ed25519_key.pub` (`ssh-ed25519 AAAA… comment`): ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of 2,048 to 8,192 bits. Its fingerprint must be the precheck's `ssh_fingerprint`. Sent with `ssh_key_signature`, or not at all.",
  example: EXAMPLE_HOST_KEY,
});

export const SshKeySignatureSchema = z.string().max(SIGNATURE_MAX, 'is too long to be an SSH signature').openapi({
  description:
    "An armored SSH signature (OpenSSH's PROTOCOL.sshsig, what `ssh-keygen -Y sign -n slowdns-activate` writes) by `ssh_host_key`, namespace `slowdns-activate`, hash `sha512` or `sha256` (RSA signs with rsa-sha2-256 or rsa-sha2-512, never SHA-1), over exactly these bytes: `slowdns-activate/1\\nservice=<origin>\\nchallenge=<proof_challenge>\\nmachine_id=<machine_id>\\nhostname=<hostname>\\npublic_ip=<public_ip>\\n`, each value as sent in this body, `<origin>` the service's origin (`PUBLIC_BASE_URL`'s scheme, host and port) and `<proof_challenge>` the precheck's. Sent with `ssh_host_key`, or not at all.",
  example: EXAMPLE_SIGNATURE,
});

/** Both fields or neither: one alone is a request that cannot be what the client meant. */
export const bothOrNeither = (body: { ssh_host_key?: string | undefined; ssh_key_signature?: string | undefined }) =>
  (body.ssh_host_key === undefined) === (body.ssh_key_signature === undefined);

export const ProofChallengeSchema = z
  .string()
  .max(43)
  .regex(/^[A-Za-z0-9_-]{43}$/)
  .openapi({
    description:
      "32 random bytes, base64url: what activate's `ssh_key_signature` signs (DESIGN §24). The precheck token carries it; every precheck makes a new one.",
    example: 'q2Yb0QhM3x9tW7cJvE5nK1pLr8sA4dFgH6jZuXoViTc',
  });

export const MachineProofPolicySchema = z.enum(['required', 'optional']).openapi({
  description:
    "Whether activate must prove the machine's SSH host key (`required`: `MACHINE_PROOF=required`, or a fleet code made with `require_machine_proof`) or may (`optional`). Without a proof where it is required activate answers 403 `machine_proof_required`.",
  example: 'optional',
});

export const SshKeyProvenSchema = z.boolean().openapi({
  description:
    "Whether the machine proved at activate that it holds the SSH host key whose fingerprint is `ssh_fingerprint` (a signature by that key over this activate's values and the precheck's challenge). It proves the key, not the machine's honesty: anyone with root on it can sign, and a cloned image with the same host key proves the same key (reported as a duplicate with `match: ssh_host_key`).",
  example: true,
});
