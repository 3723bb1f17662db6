import type { Command } from 'commander';
import type { AdminConnection } from './admin-api.js';

const DEFAULT_URL = 'http://localhost:8080';

export interface ConnectionFlags {
  url?: string;
}

/** `--url`, for every command that talks to a running service. The token comes only from the environment (never argv, which `ps` shows). */
export function connectionOptions(command: Command): Command {
  return command.option('--url <url>', `the service's base URL (default: $SLOWDNS_URL or ${DEFAULT_URL})`);
}

export function connectionFrom(env: Record<string, string | undefined>, flags: ConnectionFlags): AdminConnection {
  return { url: flags.url || env.SLOWDNS_URL || DEFAULT_URL, token: env.SLOWDNS_ADMIN_TOKEN || undefined };
}
