import { toIsoOffset, wholeSecond } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { StoredTrust } from '../../db/schema.js';
import { installCodes } from '../../db/schema.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { generateInstallCode, installCodeHint } from './code-format.js';
import type { Tags } from './fleet-rules.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import { randomId } from '../tokens/secret-hash.js';

/**
 * Codes an operator issues for a fleet (DESIGN §22): reusable up to `uses` times, each use one activation
 * with its own install token. The code is shown once and kept as its hash, as a page code is.
 */
export interface FleetCodeInput {
  /** INSTALL_CODE_PREFIX. */
  prefix: string;
  uses: number;
  ttlSeconds: number;
  description?: string | undefined;
  tags: Tags;
  /** Networks in their one spelling (`203.0.113.0/24`), or none. */
  allowedCidrs?: string[] | undefined;
  hostnamePattern?: string | undefined;
  requireApproval: boolean;
  /** Only machines that prove their SSH host key (DESIGN §24). */
  requireMachineProof?: boolean | undefined;
  /** A code that trusts a workload identity instead of a secret (DESIGN §25), checked, with its warnings. */
  trust?: { trust: StoredTrust; warnings: string[] } | undefined;
}

export interface IssuedFleetCode {
  id: string;
  /** Null for a code with `trust`: its secret exists only as a hash, never shown. */
  code: string | null;
  hint: string;
  expiresAt: Date;
  warnings: string[];
}

/** What the operator should know before handing a code out: a reusable code bound to nothing is a key to that many machines. */
function warningsFor(input: FleetCodeInput): string[] {
  if (input.trust) return input.trust.warnings;
  if (input.uses > 1 && !input.allowedCidrs && !input.requireApproval)
    return [
      `Anyone who reads this code enrolls up to ${input.uses} machines: it is bound to neither allowed_cidrs nor require_approval, and cloud-init user-data is readable through the metadata service by any process on the machine.`,
    ];
  return [];
}

/** Makes the code and its event `install_code.issued` (actor operator, with `uses`, `tags`, operator and reason) in one transaction. */
export async function issueFleetCode(
  db: Database,
  {
    input,
    now,
    context,
    hashes,
  }: {
    input: FleetCodeInput;
    now: Date;
    context: ChangeContext;
    /** How the code is kept (keyed under the KEK when one is set). */
    hashes: KeyedHashes;
  },
): Promise<IssuedFleetCode> {
  const code = generateInstallCode(input.prefix, 'fleet');
  const issued = {
    id: randomId('ic_', 8),
    code: input.trust ? null : code,
    hint: installCodeHint(code),
    expiresAt: new Date(wholeSecond(now).getTime() + input.ttlSeconds * 1000),
    warnings: warningsFor(input),
  };
  await db.transaction(async (tx) => {
    await tx.insert(installCodes).values({
      id: issued.id,
      codeHash: hashes.installCode(code),
      hint: issued.hint,
      status: 'issued',
      issuedAt: now,
      expiresAt: issued.expiresAt,
      requireApproval: input.requireApproval,
      uses: input.uses,
      operator: context.operator ?? null,
      description: input.description ?? null,
      tags: input.tags,
      allowedCidrs: input.allowedCidrs ?? null,
      hostnamePattern: input.hostnamePattern ?? null,
      requireMachineProof: input.requireMachineProof ?? false,
      trust: input.trust?.trust ?? null,
    });
    await recordEvent(tx, context, now, {
      type: 'install_code.issued',
      installCodeId: issued.id,
      data: {
        hint: issued.hint,
        expires_at: toIsoOffset(issued.expiresAt),
        uses: input.uses,
        tags: input.tags,
        ...(input.requireApproval ? { require_approval: true } : {}),
        ...(input.requireMachineProof ? { require_machine_proof: true } : {}),
        ...(input.trust ? { trust_issuer: input.trust.trust.issuer } : {}),
      },
    });
  });
  return issued;
}
