import { mayBeFleetCode } from './code-format.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import ipaddr from 'ipaddr.js';
import type { Database } from '../../db/database.js';
import type { StoredTrust } from '../../db/schema.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { hostnameMatches } from './fleet-rules.js';
import type { RateLimitCheck } from '../rate-limits/limiter.js';
import { fleetCodePolicies } from '../rate-limits/policies.js';

/**
 * What an operator bound a code to (DESIGN §22), read once per precheck and activate before anything is
 * counted: which limits apply depends on it. Never changes after issue, so reading it apart from the claim is safe.
 */
export interface CodeBinding {
  id: string;
  uses: number;
  allowedCidrs: string[] | null;
  hostnamePattern: string | null;
  /** Only machines that prove their SSH host key at activate (DESIGN §24). */
  requireMachineProof: boolean;
  /** A code that trusts a workload identity instead of its secret (DESIGN §25). */
  trust: StoredTrust | null;
}

type BindingParams = { code_hash: string };

const BINDING = namedStatement<BindingParams>(
  'select id, uses, allowed_cidrs, hostname_pattern, require_machine_proof, trust from install_codes where code_hash = :code_hash',
);

/**
 * The binding of the code with this hash; undefined when there is no such code. `canonical` is the code as sent
 * (undefined for a code named by its id, DESIGN §25).
 */
export async function readCodeBinding(
  db: Database,
  code: { canonical: string | undefined; hash: string | null },
): Promise<CodeBinding | undefined> {
  // A page code has no binding (code-format.ts): its steps stay one statement each.
  if (code.hash === null || (code.canonical !== undefined && !mayBeFleetCode(code.canonical))) return undefined;
  type Row = {
    id: string;
    uses: number;
    allowed_cidrs: string[] | null;
    hostname_pattern: string | null;
    require_machine_proof: boolean;
    trust: StoredTrust | null;
  };
  const [row] = await runStatement<Row, BindingParams>(db, BINDING, { code_hash: code.hash });
  return row
    ? {
        id: row.id,
        uses: row.uses,
        allowedCidrs: row.allowed_cidrs,
        hostnamePattern: row.hostname_pattern,
        requireMachineProof: row.require_machine_proof,
        trust: row.trust,
      }
    : undefined;
}

/** Whether the address the service observed (after TRUST_PROXY) is inside one of the networks; an unknown address is in none. */
function insideAny(observedIp: string | null, cidrs: readonly string[]): boolean {
  if (observedIp === null || !ipaddr.isValid(observedIp)) return false;
  const address = ipaddr.process(observedIp);
  return cidrs.some((cidr) => {
    const network = ipaddr.parseCIDR(cidr);
    return address.kind() === network[0].kind() && address.match(network);
  });
}

/** 403 `identity_token_required`: the code form on a code that trusts a workload identity (DESIGN §25). */
export function codeFormProblem(binding: CodeBinding | undefined): ApiError | undefined {
  return binding?.trust ? new ApiError('identity_token_required') : undefined;
}

/** 403 `install_code_address_not_allowed` when the code is bound to networks and the address is in none. */
export function addressProblem(binding: CodeBinding | undefined, observedIp: string | null): ApiError | undefined {
  if (!binding?.allowedCidrs || insideAny(observedIp, binding.allowedCidrs)) return undefined;
  return new ApiError('install_code_address_not_allowed');
}

/** 403 `install_code_hostname_not_allowed` when the code is bound to a host name pattern the name does not match. */
export function hostnameProblem(binding: CodeBinding | undefined, hostname: string): ApiError | undefined {
  if (!binding?.hostnamePattern || hostnameMatches(binding.hostnamePattern, hostname)) return undefined;
  return new ApiError(
    'install_code_hostname_not_allowed',
    `This install code enrolls only host names matching ${binding.hostnamePattern}.`,
  );
}

/**
 * The limits of a precheck or activate of this code from this address: inside the `allowed_cidrs` of a code with
 * `uses` > 1 the per-address limits give way to the code's own bucket; elsewhere `checks` as they are.
 */
export function limitsFor({
  binding,
  observedIp,
  route,
  checks,
  hashes,
}: {
  binding: CodeBinding | undefined;
  observedIp: string | null;
  route: keyof typeof fleetCodePolicies;
  checks: RateLimitCheck[];
  /** How the code's bucket hashes its subject, as `checks` were hashed. */
  hashes: KeyedHashes;
}): RateLimitCheck[] {
  if (!binding?.allowedCidrs || binding.uses === 1 || !insideAny(observedIp, binding.allowedCidrs)) return checks;
  const policy = fleetCodePolicies[route];
  return [
    ...checks.filter((check) => check.policy.subject !== 'ip'),
    { policy, subject: binding.id, subjectHash: hashes.rateLimitSubject(policy.name, binding.id), quota: policy.quota },
  ];
}
