import type { Command } from 'commander';
import { pruneOnce } from '../domain/upkeep/pruning.js';
import type { CliContext } from './context.js';
import { outputFor } from './context.js';
import { withServiceDatabase } from './local-database.js';

/** `serve`, `migrate`, `prune`: the service itself and its database, configured by the same environment. */
export function registerServiceCommands(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('run the service (as npm start), configured by the environment (docs/configuration.md)')
    .action(() => context.serve());

  program
    .command('migrate')
    .description('apply the database migrations and exit (the server also applies them at start)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      await withServiceDatabase(context.env, async () => undefined);
      const out = outputFor(context, options);
      out.write(out.json ? `${JSON.stringify({ migrated: true })}\n` : 'migrations applied\n');
    });

  program
    .command('prune')
    .description(
      'delete old rate-limit buckets, expired sessions, long-expired unused codes and old events once (for cron)',
    )
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const result = await withServiceDatabase(context.env, (db, config, now) =>
        pruneOnce(db, now, config.eventRetentionDays),
      );
      const out = outputFor(context, options);
      if (out.json)
        out.write(`${JSON.stringify(result ? { pruned: result } : { skipped: 'another instance is pruning' })}\n`);
      else if (!result) out.write('skipped: another instance is pruning\n');
      else
        out.write(
          `pruned: ${Object.entries(result)
            .map(([what, count]) => `${count} ${what}`)
            .join(', ')}\n`,
        );
    });
}
