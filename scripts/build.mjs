// `npm run build`: the server as plain JavaScript, so that `npm start` runs it with node alone (tsx is
// for development and tests), the files the code reads next to itself (page assets) and the
// migrations, in the same layout as the repo:
//   dist/src/main.js   the server bundled (src/ and its dependencies; node loaded 535 files one per
//                      module, for twice the CPU to the first healthy answer), with main-*.js chunks:
//                      what is imported dynamically (PGlite's side) loads only when used. PGlite itself
//                      stays in node_modules: it reads its .wasm and .data files beside its own code
//   dist/src/cli/main.js  the `slowdns` command (bin/slowdns.js), bundled the same way; the two share chunks
//   dist/src/**.js     every other module of src/ on its own (the seed below is made with them), with
//                      src's other files copied beside them
//   dist/clients/shell/activate.sh  the shell client the service serves
//   dist/src/routes/scalar/  the interactive API reference's browser bundle and its package.json (for
//                      its version), copied from @scalar/api-reference, a devDependency: the whole
//                      package tree (84 MB, TypeScript among it) stays out of a production install
//   dist/drizzle/      the SQL migrations (src/db/migrations-folder.ts: ../../drizzle)
//   dist/build-finished  written last: its presence says the build above finished, its time when
//   dist/drizzle/pglite-seed.tar.gz  the migrated empty embedded database (src/db/pglite-seed.ts), made after
//                      the rest by the compiled code from the copied migrations, so it always matches them.
//                      `npm run build` (the container, CI, a deployment) and the tests' `--if-stale` make it;
//                      `npm start`'s build does not (scripts/start.mjs): the compiled server makes it at the
//                      first fresh start that finds none, and keeps it here (src/db/pglite-seed.ts).
// JavaScript on purpose, so that `npm start` can build with node alone when dist/ is missing or stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** What the build reads: when any of it is newer than dist/, dist/ is stale. */
const inputs = [
  'src',
  'drizzle',
  'clients/shell/activate.sh',
  'clients/typescript/src/receipt.ts',
  'package-lock.json',
  'scripts/build.mjs',
];
/** Written last by buildServer: its presence says the build finished. */
const stamp = join(dist, 'build-finished');
/** Made after the stamp from dist/ itself (here, or by the server's first fresh start); removed with dist/ by every build. */
const seed = join(dist, 'drizzle', 'pglite-seed.tar.gz');

// Synchronous on purpose: every `npm start` asks it of the ~300 files first (the stat calls one after
// another through fs/promises took ~30 ms of each start, these 5-7 ms).
function filesUnder(path) {
  if (!statSync(path).isDirectory()) return [path];
  const entries = readdirSync(path, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

/** True when dist/ holds a build newer than every input. */
export function buildIsCurrent() {
  let built;
  try {
    built = statSync(stamp);
  } catch {
    return false;
  }
  return inputs.every((input) =>
    filesUnder(join(root, input)).every((file) => statSync(file).mtimeMs <= built.mtimeMs),
  );
}

/**
 * In the bundle, a module's import.meta.url is still the URL of its own compiled file in dist/src/,
 * beside which the files it reads are copied (page assets, ../../drizzle, ../../clients/shell).
 */
function ownImportMetaUrl(source) {
  return {
    name: 'own-import-meta-url',
    setup(bundler) {
      bundler.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        if (!path.startsWith(source)) return undefined;
        const text = await readFile(path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const compiled = `./${relative(source, path).replace(/\.ts$/, '.js')}`;
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, import.meta.url).href`),
          loader: 'ts',
        };
      });
    },
  };
}

/**
 * zod's namespace carries every one of its 60-odd locales (`z.locales`, 366 kB of the server's 1.7 MB
 * bundle, parsed and compiled at every start); the service speaks English only (zod's default, `en`), so
 * the bundle's `z.locales` holds `en` alone.
 */
function zodEnglishOnly() {
  return {
    name: 'zod-english-only',
    setup(bundler) {
      bundler.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
        /node_modules\/zod\/v4\/(classic|core)\//.test(importer)
          ? { path: 'zod-locales', namespace: 'zod-english-only' }
          : undefined,
      );
      bundler.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
        contents: "export { default as en } from 'zod/v4/locales/en.js';",
        resolveDir: root,
      }));
    },
  };
}

/** True when dist/ holds the embedded database's seed (made from dist/ itself, so as current as dist/). */
const seedIsBuilt = () => existsSync(seed);

/** The compiled server, the command and the files they read; no seed (buildSeed makes it from these). */
export async function buildServer() {
  const { build } = await import('esbuild');
  const source = join(root, 'src');
  const files = filesUnder(source);
  await rm(dist, { recursive: true, force: true });
  const entries = [join(source, 'main.ts'), join(source, 'cli', 'main.ts')];
  const common = { format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning' };
  await build({
    ...common,
    entryPoints: files.filter((f) => f.endsWith('.ts') && !entries.includes(f)),
    outdir: join(dist, 'src'),
    outbase: source,
  });
  await build({
    ...common,
    entryPoints: entries,
    outdir: join(dist, 'src'),
    bundle: true,
    // What is imported dynamically (PGlite's side, on PGlite only) is a chunk of its own, loaded when imported.
    splitting: true,
    chunkNames: 'main-[name]-[hash]',
    external: ['@electric-sql/pglite'],
    // The CommonJS dependencies (prom-client, ipaddr.js) require node's modules.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
    plugins: [ownImportMetaUrl(source), zodEnglishOnly()],
  });
  for (const file of files.filter((f) => !f.endsWith('.ts'))) await cp(file, join(dist, 'src', relative(source, file)));
  // Read by src/routes/reference.ts beside its compiled self.
  const scalar = join(root, 'node_modules', '@scalar', 'api-reference');
  const scalarCopy = join(dist, 'src', 'routes', 'scalar');
  await cp(join(scalar, 'package.json'), join(scalarCopy, 'package.json'));
  await cp(join(scalar, 'dist', 'browser', 'standalone.js'), join(scalarCopy, 'dist', 'browser', 'standalone.js'));
  await cp(join(root, 'drizzle'), join(dist, 'drizzle'), { recursive: true });
  // Served by GET /slowdns/activate.sh (src/routes/installer-script.ts: ../../clients/shell/activate.sh).
  await cp(join(root, 'clients/shell/activate.sh'), join(dist, 'clients/shell/activate.sh'));
  await writeFile(stamp, `${new Date().toISOString()}\n`);
}

/**
 * The embedded database's seed, made by the compiled code itself from the copied migrations (initdb and every
 * migration in PGlite: ~95 % of a whole build's time and all of its memory peak, docs/measurements.md). Written
 * under another name, then renamed: a build stopped midway leaves no half seed for seedIsBuilt to find.
 */
async function buildSeed() {
  const { createPgliteSeed, pgliteSeedFile } = await import(join(dist, 'src', 'db', 'pglite-seed.js'));
  if (pgliteSeedFile() !== seed) throw new Error(`the seed's file moved: ${pgliteSeedFile()}, not ${seed}`);
  await writeFile(`${seed}.partial`, await createPgliteSeed());
  await rename(`${seed}.partial`, seed);
}

// `node scripts/build.mjs` (`npm run build`) builds dist/ and its seed. With `--if-stale` (the tests run it
// once before anything loads the seed or spawns the compiled server), only what is missing or older than its
// inputs: dist/ after a change, the seed after an `npm start` built dist/ and started on an existing DATA_DIR.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  const started = performance.now();
  const built = [];
  if (!ifStale || !buildIsCurrent()) {
    await buildServer();
    built.push('dist/');
  }
  if (!ifStale || built.length > 0 || !seedIsBuilt()) {
    await buildSeed();
    built.push('its seed');
  }
  console.log(
    built.length > 0
      ? `built ${built.join(' and ')} in ${Math.round(performance.now() - started)} ms`
      : 'dist/ is current',
  );
}
