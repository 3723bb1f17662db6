/**
 * The suite's two groups (vitest projects in vitest.config.ts).
 *
 * `database`: every other file. It depends on the database or on the Node version: app.request and the
 * typed client against an app on a database, the database and driver files, the races, the pooler, and
 * the files that start the real server (npm start, start-up, tracing, the webhook kill). CI runs it in
 * every pass: PGlite on Node 20, PostgreSQL on Node 22, PgBouncer on Node 24.
 *
 * `once` (these files): what a browser, the shell, the documents or the TypeScript compiler check. Their
 * outcome does not change with the database or the Node version under the service: the server's side of
 * each (the page's routes, the watch and cancel answers, the client's calls, the command's domain
 * functions) is asserted by database files in every pass. CI runs them in pass 1 (PGlite, Node 20), in
 * `npm test`.
 */
export const ONCE_FILES = [
  // Chromium drives the pages (the routes behind them: test/page/code-*.test.ts, page-routes, approval-choice).
  'test/page/slowdns-page.test.ts',
  'test/page/code-watch.test.ts',
  'test/page/approval.test.ts',
  // The page in each of its languages and the pseudo-locale; its catalogs (files only, no database).
  'test/page/i18n/page-languages-browser.test.ts',
  'test/page/i18n/catalogs.test.ts',
  'test/foundation/docs-browser.test.ts',
  'test/console/console-browser.test.ts',
  'test/webhooks/chat-renderings.test.ts',
  // The shell client's bats suite against the real service (its routes: the client and lifecycle files).
  'test/shell/activate-sh.test.ts',
  // Its message catalogs, read from the script and run in sh.
  'test/shell/activate-sh-messages.test.ts',
  // The doc tests: the guides' examples, links, tables and TypeScript blocks.
  'test/docs/checked-blocks.test.ts',
  'test/docs/cloud-init.test.ts',
  'test/docs/examples.test.ts',
  'test/docs/links.test.ts',
  'test/docs/reference-tables.test.ts',
  'test/docs/typescript-blocks.test.ts',
  'test/docs/typescript-fresh-project.test.ts',
  // Generated files and the document: drift, the client's published types and licence, the examples.
  'clients/typescript/test/drift.test.ts',
  'clients/typescript/test/exact-optional-types.test.ts',
  'clients/typescript/test/package-license.test.ts',
  'test/contract/examples.test.ts',
  'test/contract/one-source.test.ts',
  'test/contract/response-validator.test.ts',
  // The house's rules, read from the sources: the imports (with TypeScript's parser) and the files' lengths.
  'test/foundation/import-rules.test.ts',
  'test/foundation/file-sizes.test.ts',
  // The `slowdns` command as a process (the functions it calls run in every pass: admin, pruning, start-up;
  // receipt verification, which leans on Node's Ed25519, stays in every pass: receipt-verify.test.ts).
  'test/operations/slowdns-command.test.ts',
  'test/operations/slowdns-codes.test.ts',
  // A fresh clone's first `npm start` (the build and a fresh embedded DATA_DIR: no database setting reaches it).
  'test/operations/first-npm-start.test.ts',
];
