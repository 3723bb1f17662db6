// BENCH_FLOOR_MUSTS: a second floor that also does what the design requires of each step and the first floor
// skips, so the service's excess can be told apart from what any service keeping these promises would pay:
// the body checked by the contract's own schema (the service's zod schemas), and the same SHA-256 the service
// makes per step (DESIGN §23: each rate-limit subject and the client's key keyed under the KEK, the code,
// the jtis, the token memo's lookups). Still no framework, no rate-limit arithmetic, no statement of its own.
import { hmacSha256Hex, type KeyedHashes, keyedHashes } from '../../src/domain/tokens/keyed-hashes.js';
import { policiesFor } from '../../src/domain/rate-limits/policies.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { ActivateRequestSchema, ConfirmRequestSchema, PrecheckRequestSchema } from '../../src/schemas/activation.js';
import type { Step } from './lifecycle-steps.js';

type Body = Record<string, string>;

const schemas = { precheck: PrecheckRequestSchema, activate: ActivateRequestSchema, confirm: ConfirmRequestSchema };

function limitSubjects(hashes: KeyedHashes, route: 'precheck' | 'activate', body: Body, ip: string): void {
  for (const policy of policiesFor(route)) {
    if (policy.subject === 'ip') hashes.rateLimitSubject(policy.name, ip);
    if (policy.subject === 'machine') hashes.rateLimitSubject(policy.name, body.machine_id!);
  }
}

/**
 * The hashes the service makes per step, counted in its own code (a `crypto.hash` wrapped, one install):
 * precheck 6 (two keyed subjects, the code, the memo's record of its token), activate 12 (two keyed
 * subjects, the client's key, the code, the memo's lookup and record, the jti derived, its hash and the
 * precheck jti's), confirm 6 (the memo's lookup, the client's key, the jti's hash, the receipt's keyed
 * machine id). Keyed as the bench's service is: under its KEY_ENCRYPTION_KEY on PostgreSQL (the counts above),
 * plain on PGlite (an HMAC is one SHA-256 there: 4, 9 and 5).
 */
export function designMusts(
  kek: Buffer | undefined,
): (step: Step, body: unknown, ip: string, answer: Record<string, string>) => void {
  const hashes = keyedHashes(kek);
  const machineIdHmac = hmacSha256Hex(Buffer.alloc(32, 0x1f));
  return (step, body, ip, answer) => {
    if (step !== 'precheck' && step !== 'activate' && step !== 'confirm') return;
    const parsed = schemas[step].safeParse(body);
    if (!parsed.success) throw new Error(`the bench's ${step} body is not valid: ${parsed.error.message}`);
    const fields = body as Body;
    if (step === 'precheck') {
      limitSubjects(hashes, 'precheck', fields, ip);
      sha256Hex(fields.install_code!);
      sha256Hex(answer.precheck_token!);
    } else if (step === 'activate') {
      limitSubjects(hashes, 'activate', fields, ip);
      hashes.clientKey(ip);
      sha256Hex(fields.install_code!);
      sha256Hex(fields.precheck_token!);
      const jti = sha256Hex(`slowdns install-token jti\0${fields.precheck_token!.slice(-22)}\0act_0123456789abcdef`);
      sha256Hex(jti);
      sha256Hex(fields.precheck_token!.slice(-22));
      sha256Hex(answer.install_token!);
    } else {
      sha256Hex(fields.install_token!);
      hashes.clientKey(ip);
      sha256Hex(fields.install_token!.slice(-22));
      // The receipt's keyed machine id (two SHA-256): confirm's body has none, the activation id stands in.
      machineIdHmac(fields.activation_id!);
    }
  };
}
