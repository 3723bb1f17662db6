/** A refusal of a machine proof: which check failed, for the event (never for the answer, DESIGN §24). */
export class ProofFailure extends Error {
  constructor(readonly reason: ProofFailureReason) {
    super(reason);
  }
}

export type ProofFailureReason =
  | 'no_challenge'
  | 'malformed_key'
  | 'malformed_signature'
  | 'key_not_signers'
  | 'fingerprint_mismatch'
  | 'key_type_refused'
  | 'rsa_key_size'
  | 'signature_algorithm_refused'
  | 'namespace_mismatch'
  | 'hash_algorithm_refused'
  | 'signature_invalid';

/**
 * Reads SSH's wire encoding (RFC 4251 §5): `uint32` and length-prefixed `string`s. Any read past the end is
 * a `ProofFailure` with the reason the reader was made with: bytes from outside never throw anything else.
 */
export class SshWireReader {
  private offset = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly malformed: ProofFailureReason,
  ) {}

  uint32(): number {
    if (this.offset + 4 > this.bytes.length) throw new ProofFailure(this.malformed);
    const value = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  string(): Buffer {
    const length = this.uint32();
    if (length > this.bytes.length - this.offset) throw new ProofFailure(this.malformed);
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  text(): string {
    return this.string().toString('latin1');
  }

  raw(length: number): Buffer {
    if (length > this.bytes.length - this.offset) throw new ProofFailure(this.malformed);
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  /** Nothing may follow the last field. */
  end(): void {
    if (this.offset !== this.bytes.length) throw new ProofFailure(this.malformed);
  }
}

/** An SSH `string`: its length as a uint32, then its bytes. */
export function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A positive `mpint` as an unsigned big-endian integer without leading zeros. */
export function unsignedInteger(mpint: Buffer): Buffer {
  let start = 0;
  while (start < mpint.length - 1 && mpint[start] === 0) start += 1;
  return mpint.subarray(start);
}
