import { runSlowdns } from '../../src/cli/run-slowdns.js';

/** What one `slowdns …` run printed and its exit code. */
export interface SlowdnsRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The `slowdns` command run in this process (src/cli/run-slowdns.ts, what the process's main.ts runs), given
 * only this environment: what each command does, without a node start-up per call.
 */
export async function slowdns(args: string[], env: Record<string, string> = {}): Promise<SlowdnsRun> {
  let stdout = '';
  let stderr = '';
  const code = await runSlowdns(args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    write: (text) => {
      stdout += text;
    },
    writeError: (text) => {
      stderr += text;
    },
    readStdin: async () => '',
    serve: () => Promise.reject(new Error('slowdns serve is not run in a test process')),
  });
  return { code, stdout, stderr };
}
