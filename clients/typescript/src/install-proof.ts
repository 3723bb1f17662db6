import type { ActivateRequest, PrecheckResult } from './client.js';
import { hostKeyFingerprint, readableHostKey, signMachineProof, type MachineProofFields } from './machine-proof.js';
import { HostKeyUnusableError } from './openssh-private-key.js';

/** The service requires machine proof (precheck's `machine_proof: "required"`) and this machine cannot give one. */
export class MachineProofUnavailableError extends Error {
  override readonly name = 'MachineProofUnavailableError';
}

export interface InstallProofOptions {
  /**
   * The OpenSSH private key file that proves the machine at activate (DESIGN §24). Default: the first of
   * `/etc/ssh/ssh_host_{ed25519,ecdsa,rsa}_key` this process can read (root can). `false`: never prove.
   */
  hostKeyFile?: string | false;
  /** The service's origin the proof names (scheme, host, port). Default: the client's `baseUrl`'s. */
  serviceOrigin?: string;
  /** Told why this install goes on without proving its key. Default: `console.error`. */
  onProofSkipped?(message: string): void;
}

/**
 * The two proof fields for this activate, signed over its values as sent; `undefined` (said through
 * `onProofSkipped`) when this machine cannot prove its key: no readable key, another key than the fingerprint
 * sent, a key this client cannot read. Where the precheck answered `machine_proof: "required"` that throws
 * `MachineProofUnavailableError` instead.
 */
export async function proofFor(
  options: InstallProofOptions & { baseUrl: string },
  precheck: PrecheckResult,
  body: Pick<ActivateRequest, 'machine_id' | 'ssh_fingerprint' | 'hostname' | 'public_ip'>,
): Promise<MachineProofFields | undefined> {
  const why = await (async () => {
    if (options.hostKeyFile === false) return 'proof is turned off (hostKeyFile: false)';
    if (!precheck.proof_challenge) return 'the precheck gave no challenge (a service without machine proofs)';
    const key = await readableHostKey(options.hostKeyFile === undefined ? undefined : [options.hostKeyFile]);
    if (!key) return 'no SSH host private key this process can read (run as root, or name one with hostKeyFile)';
    try {
      if (hostKeyFingerprint(key.text) !== body.ssh_fingerprint)
        return `the host key ${key.file} is not the one of the fingerprint sent (${body.ssh_fingerprint})`;
      return signMachineProof(key.text, {
        serviceOrigin: options.serviceOrigin ?? new URL(options.baseUrl).origin,
        challenge: precheck.proof_challenge,
        machineId: body.machine_id,
        hostname: body.hostname,
        publicIp: body.public_ip,
      });
    } catch (error) {
      if (error instanceof HostKeyUnusableError) return `${key.file}: ${error.message}`;
      throw error;
    }
  })();
  if (typeof why !== 'string') return why;
  if (precheck.machine_proof === 'required')
    throw new MachineProofUnavailableError(
      `This service requires machines to prove their SSH host key, and this one cannot: ${why}.`,
    );
  (options.onProofSkipped ?? console.error)(`Going on without proving this machine's SSH host key: ${why}.`);
  return undefined;
}
