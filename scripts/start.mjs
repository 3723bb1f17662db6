// `npm start`: the compiled server (dist/src/main.js) with plain node, in this very process. A fresh
// clone, or a change to src/ or drizzle/ since the last build, builds first (esbuild, well under a second).
import { buildIsCurrent, buildServer } from './build.mjs';

if (!(await buildIsCurrent())) {
  process.stderr.write('slowdns: building dist/ (npm run build)\n');
  await buildServer();
}
await import('../dist/src/main.js');
