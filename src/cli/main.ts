// `slowdns` (bin/slowdns.js): the operator command. Like src/main.ts for the server, this entry file is
// the only module of the command that reads the environment; everything below gets it passed in.
import { CommanderError } from 'commander';
import { ConfigError } from '../config-error.js';
import { DataDirError } from '../db/data-dir-lock.js';
import { SigningKeyError } from '../domain/signing-key-store.js';
import { errorFields } from '../logger.js';
import { CliError } from './cli-error.js';
import { buildProgram } from './program.js';

const program = buildProgram({
  env: process.env,
  write: (text) => process.stdout.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  // The server's own entry: it reads its configuration from the environment, as `npm start` does.
  serve: async () => {
    await import('../main.js');
  },
});

/** One line on stderr and an exit code: 1 a failure, 2 a usage error, 3 the service could not be reached (4-6: a receipt refused, receipt-commands.ts). */
function fail(message: string, exitCode: number): void {
  process.stderr.write(`slowdns: ${message}\n`);
  process.exitCode = exitCode;
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has printed the help or its one-line usage error already.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof CliError) fail(err.message, err.exitCode);
  else if (err instanceof ConfigError || err instanceof SigningKeyError || err instanceof DataDirError)
    fail(err.message, 1);
  else fail(`failed: ${errorFields(err).error.split('\n')[0]}`, 1);
}
