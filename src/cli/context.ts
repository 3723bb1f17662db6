import type { Output } from './output.js';

/** What every command group is given by the entry file (the only place that reads the environment). */
export interface CliContext {
  env: Record<string, string | undefined>;
  write(text: string): void;
  /** Where failures, usage errors and Commander's own complaints go (standard error). */
  writeError(text: string): void;
  /** All of standard input (`receipt verify -`). */
  readStdin(): Promise<string>;
  /** Runs the service in this process (`slowdns serve`). */
  serve(): Promise<void>;
}

export const outputFor = (context: CliContext, options: { json?: boolean }): Output => ({
  json: options.json === true,
  write: context.write,
});
