import { Command } from 'commander';
import { registerActivationsCommands } from './activations-commands.js';
import { registerCodesCommands } from './codes-commands.js';
import type { CliContext } from './context.js';
import { registerEventsCommands } from './events-commands.js';
import { registerKeysCommands } from './keys-commands.js';
import { registerLimitsCommands } from './limits-commands.js';
import { registerReceiptCommands } from './receipt-commands.js';
import { registerServersCommands } from './servers-commands.js';
import { registerServiceCommands } from './service-commands.js';
import { registerWebhooksCommands } from './webhooks-commands.js';
import { registerTokensCommands } from './tokens-commands.js';
import { slowdnsVersion } from './version.js';

/** The whole `slowdns` command tree; `exitOverride` lets the entry file decide every exit code. */
export function buildProgram(context: CliContext): Command {
  const program = new Command('slowdns')
    .description(
      'Operate the SlowDNS activation service. serve, migrate, prune and keys act on the database named by the environment (DATABASE_URL or DATA_DIR); ' +
        'codes, activations, servers, events, limits and webhooks talk to a running service over its admin API (--url or SLOWDNS_URL, token in SLOWDNS_ADMIN_TOKEN).',
    )
    .version(slowdnsVersion(), '-V, --version', "print the service's version")
    .exitOverride()
    // Help and usage errors through the context too (the subcommands made by .command() inherit it).
    .configureOutput({ writeOut: context.write, writeErr: context.writeError })
    .showSuggestionAfterError();
  registerServiceCommands(program, context);
  registerKeysCommands(program, context);
  registerCodesCommands(program, context);
  registerActivationsCommands(program, context);
  registerServersCommands(program, context);
  registerEventsCommands(program, context);
  registerLimitsCommands(program, context);
  registerWebhooksCommands(program, context);
  registerTokensCommands(program, context);
  registerReceiptCommands(program, context);
  // Every subcommand reports its usage errors the way the program does (exit code from the entry file).
  const inherit = (command: Command) => {
    for (const c of command.commands) inherit(c.exitOverride());
  };
  inherit(program);
  return program;
}
