#!/usr/bin/env node
// The `slowdns` operator command: the compiled command (dist/src/cli/main.js) with plain node, as
// `npm start` runs the compiled server. A fresh clone, or a change since the last build, builds first.
import { buildIsCurrent, buildServer } from '../scripts/build.mjs';

if (!buildIsCurrent()) {
  process.stderr.write('slowdns: building dist/ (npm run build)\n');
  await buildServer();
}
await import('../dist/src/cli/main.js');
