// `npm start`: the compiled server (dist/src/main.js) with plain node, in this very process. A fresh
// clone, or a change to src/ or drizzle/ since the last build, builds first (esbuild, a second or two), without
// the embedded database's seed (scripts/build.mjs): the server makes it at the first fresh start that needs it
// and keeps it (src/db/pglite-seed.ts), with the port already answering, instead of a build before the port.
// package.json runs it as `exec node --max-semi-space-size=16 scripts/start.mjs` (docs/deployment.md says
// why the option): npm passes SIGTERM and SIGINT to its child only, and dash (Debian's sh) keeps itself
// between npm and node unless told to exec, so without it the signal of a supervisor's stop never reached
// the server (test/operations/npm-start.test.ts).
import { buildIsCurrent, buildServer } from './build.mjs';

if (!buildIsCurrent()) {
  process.stderr.write('slowdns: building dist/ (npm run build)\n');
  await buildServer();
}
await import('../dist/src/main.js');
