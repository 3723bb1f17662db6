import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { ReceiptInvalidError, verifyReceipt, type ReceiptProblem } from '../../clients/typescript/src/receipt.js';
import { CliError } from './cli-error.js';
import type { CliContext } from './context.js';

/** Exit codes of `slowdns receipt verify`, beside 0 (valid), 1 (failed), 2 (usage) and 3 (unreachable). */
const RECEIPT_EXIT_CODES: Record<ReceiptProblem, number> = { bad_signature: 4, unknown_key: 5, malformed: 6 };

async function readJwks(source: string): Promise<JSONWebKeySet> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    let res: Response;
    try {
      res = await fetch(source, { signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      throw new CliError(`cannot reach ${source}: ${cause?.code ?? (err as Error).message}`, 3);
    }
    if (!res.ok) throw new CliError(`${source} answered ${res.status}`, 1);
    text = await res.text();
  } else {
    text = await readFile(source, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${source}: ${err.code ?? err.message}`, 2);
    });
  }
  try {
    const jwks = JSON.parse(text) as JSONWebKeySet;
    if (!Array.isArray(jwks?.keys)) throw new Error();
    return jwks;
  } catch {
    throw new CliError(`${source} is not a JWK Set (a JSON object with "keys")`, 1);
  }
}

/** `receipt verify`: an activation receipt checked offline against a JWKS, with the client's own verifyReceipt. */
export function registerReceiptCommands(program: Command, context: CliContext): void {
  const receipt = program
    .command('receipt')
    .description("activation receipts: verify one offline against the service's public keys");
  receipt
    .command('verify')
    .description(
      'verify an activation receipt (a file, or - for stdin) against a JWKS and print its claims as JSON; exit 0 valid, 4 bad signature, 5 unknown key, 6 malformed or not a receipt',
    )
    .argument('<file>', 'the receipt, or - to read it from stdin')
    .requiredOption('--jwks <file-or-url>', 'the JWK Set: a saved copy of /.well-known/jwks.json, or its URL')
    .action(async (file: string, options: { jwks: string }) => {
      const text =
        file === '-'
          ? await context.readStdin()
          : await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
              throw new CliError(`cannot read ${file}: ${err.code ?? err.message}`, 2);
            });
      const jwks = await readJwks(options.jwks);
      try {
        context.write(`${JSON.stringify(await verifyReceipt(text, jwks), null, 2)}\n`);
      } catch (err) {
        if (err instanceof ReceiptInvalidError)
          throw new CliError(`receipt refused: ${err.message}`, RECEIPT_EXIT_CODES[err.problem]);
        throw err;
      }
    });
}
