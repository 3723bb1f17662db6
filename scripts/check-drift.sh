#!/usr/bin/env bash
# `npm run check:drift`: fails when a generated, committed file no longer matches its source.
#   openapi/openapi.json                  ← the routes (npm run generate:openapi)
#   drizzle/                              ← src/db/schema.ts (npm run generate:migrations)
#   clients/typescript/src/schema.d.ts    ← openapi/openapi.json (npm run generate:client)
# `npm run generate` fixes all three; commit what it writes.
set -euo pipefail
cd "$(dirname "$0")/.."

# The project's own binaries, run directly: npx would add a second of npm's start-up to each.
bin=node_modules/.bin
drifted=()
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

echo "== drift: openapi/openapi.json"
npm run --silent generate:openapi
if ! git diff --quiet --exit-code -- openapi/ || [ -n "$(git ls-files --others --exclude-standard -- openapi/)" ]; then
  git --no-pager diff --stat -- openapi/
  git ls-files --others --exclude-standard -- openapi/ | sed 's/^/untracked: /'
  drifted+=("openapi/openapi.json (fix: npm run generate:openapi)")
fi

echo "== drift: drizzle/ migrations"
# Consistency of the committed migrations themselves (journal, snapshots, collisions).
"$bin/drizzle-kit" check
# Then generate into a scratch copy, never into the working tree: a new migration there means the
# schema changed without one. drizzle-kit prefixes --out with './', so it must be a relative path.
cp -r drizzle "$scratch/drizzle"
# </dev/null: an ambiguous change (rename or drop+add?) makes drizzle-kit prompt; fail instead of hanging.
if ! timeout 120 "$bin/drizzle-kit" generate --dialect=postgresql --schema=./src/db/schema.ts \
  --out="$(realpath --relative-to=. "$scratch/drizzle")" </dev/null >"$scratch/drizzle-kit.log" 2>&1; then
  cat "$scratch/drizzle-kit.log"
  drifted+=("drizzle/ (drizzle-kit generate failed or needs an answer; run npm run generate:migrations)")
elif ! diff -r drizzle "$scratch/drizzle" >"$scratch/drizzle.diff"; then
  sed -n '1,40p' "$scratch/drizzle.diff"
  drifted+=("drizzle/ (src/db/schema.ts has changes without a migration; fix: npm run generate:migrations)")
fi

if [ -f clients/typescript/src/schema.d.ts ]; then
  echo "== drift: clients/typescript/src/schema.d.ts"
  if ! "$bin/openapi-typescript" openapi/openapi.json -c clients/typescript/redocly.yaml --check -o clients/typescript/src/schema.d.ts; then
    drifted+=("clients/typescript/src/schema.d.ts (fix: npm run generate:client)")
  fi
fi

if [ "${#drifted[@]}" -gt 0 ]; then
  echo
  echo "DRIFT: these generated files do not match their sources:"
  printf '  - %s\n' "${drifted[@]}"
  echo "Run 'npm run generate' and commit the result."
  exit 1
fi
echo "no drift: openapi/openapi.json, drizzle/ and the client types match their sources"
