// `slowdns` (bin/slowdns.js): the operator command. Like src/main.ts for the server, this entry file is
// the only module of the command that reads the environment; everything below gets it passed in.
import { runSlowdns } from './run-slowdns.js';

process.exitCode = await runSlowdns(process.argv.slice(2), {
  env: process.env,
  write: (text) => process.stdout.write(text),
  writeError: (text) => process.stderr.write(text),
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
