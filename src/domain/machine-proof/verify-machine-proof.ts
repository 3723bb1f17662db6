import { PROOF_NAMESPACE, proofMessage, type ProofStatement } from './proof-message.js';
import { publicKeyLineBlob, sshFingerprintOf, type HostKeyType } from './ssh-public-key.js';
import { parseArmoredSignature, verifySshSignature } from './sshsig.js';
import { ProofFailure } from './ssh-wire.js';

/** What an activate sends to prove its machine (DESIGN §24). */
export interface MachineProof {
  /** One OpenSSH public key line: `ssh-ed25519 AAAA… comment`. */
  sshHostKey: string;
  /** An armored SSH signature (PROTOCOL.sshsig) in the namespace `slowdns-activate`. */
  sshKeySignature: string;
}

/**
 * Refuses (a `ProofFailure` naming the check) unless the proof shows that the holder of the key whose
 * fingerprint the precheck bound signed this very statement: the precheck's token carries a challenge,
 * `ssh_host_key` is the key inside the signature, its fingerprint is the precheck's, the key and its
 * signature algorithm are accepted ones, and the signature verifies over the statement in the namespace.
 * Answers the key's type. Runs on the request's bytes alone: nothing is read, nothing is run.
 */
export function verifyMachineProof(
  proof: MachineProof,
  {
    statement,
    fingerprint,
  }: { statement: Omit<ProofStatement, 'challenge'> & { challenge: string | undefined }; fingerprint: string },
): HostKeyType {
  const { challenge } = statement;
  if (challenge === undefined) throw new ProofFailure('no_challenge');
  const blob = publicKeyLineBlob(proof.sshHostKey);
  const signature = parseArmoredSignature(proof.sshKeySignature);
  if (!blob.equals(signature.publicKey)) throw new ProofFailure('key_not_signers');
  if (sshFingerprintOf(blob) !== fingerprint) throw new ProofFailure('fingerprint_mismatch');
  return verifySshSignature(signature, PROOF_NAMESPACE, proofMessage({ ...statement, challenge })).type;
}
