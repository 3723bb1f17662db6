// One run of the `slowdns` command, from its arguments to its exit code: what main.ts does for the process,
// and what a test does in its own process for the commands whose outcome is not about being a process.
import { CommanderError } from 'commander';
import { ConfigError } from '../config-error.js';
import { DataDirError } from '../db/data-dir-lock.js';
import { SigningKeyError } from '../domain/tokens/signing-key-store.js';
import { errorFields } from '../logger.js';
import { CliError } from './cli-error.js';
import type { CliContext } from './context.js';
import { buildProgram } from './program.js';

/**
 * Runs `slowdns <args>` and answers its exit code: 0 done, 1 a failure, 2 a usage error, 3 the service
 * could not be reached (4-6: a receipt refused, receipt-commands.ts). A failure is one line on
 * `writeError`.
 */
export async function runSlowdns(args: string[], context: CliContext): Promise<number> {
  const fail = (message: string, exitCode: number) => {
    context.writeError(`slowdns: ${message}\n`);
    return exitCode;
  };
  try {
    await buildProgram(context).parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    // Commander has printed the help or its one-line usage error already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) return fail(err.message, err.exitCode);
    if (err instanceof ConfigError || err instanceof SigningKeyError || err instanceof DataDirError)
      return fail(err.message, 1);
    return fail(`failed: ${errorFields(err).error.split('\n')[0]}`, 1);
  }
}
