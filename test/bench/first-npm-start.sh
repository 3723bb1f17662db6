#!/usr/bin/env bash
# A newcomer's first `npm start` (issue 59, point 10; docs/measurements.md): for each checkout given, taking
# turns round by round so that the machine's load falls on all of them, the checkout is put back as a fresh
# clone leaves it (no dist/, no data/; its node_modules as `npm ci` left it), then `npm start` is timed from
# the command to the first answer of /api/v2/livez (listening) and to the first 200 of /api/v2/healthz (the
# database migrated, the service healthy). The peak memory is the largest process of the tree (GNU time's
# maximum resident set size: npm, or the server's node). The server is then stopped with SIGTERM.
#   test/bench/first-npm-start.sh ROUNDS CHECKOUT...
# One line per start: round, checkout, listening ms, healthy ms, peak MiB, and whether it built a seed.
set -euo pipefail
rounds=$1
shift
port=18950
now_ms() { date +%s%3N; }
for round in $(seq 1 "$rounds"); do
  for checkout in "$@"; do
    rm -rf "$checkout/dist" "$checkout/data"
    log=$(mktemp)
    started=$(now_ms)
    (cd "$checkout" && PORT=$port exec /usr/bin/time -f 'peak_kib=%M' npm start >"$log" 2>&1) &
    runner=$!
    listening=''
    healthy=''
    while [ -z "$healthy" ]; do
      if [ -z "$listening" ] && curl -s -o /dev/null "http://127.0.0.1:$port/api/v2/livez"; then
        listening=$(($(now_ms) - started))
      fi
      if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v2/healthz")" = 200 ]; then
        healthy=$(($(now_ms) - started))
      fi
      if ! kill -0 "$runner" 2>/dev/null; then
        cat "$log" >&2
        exit 1
      fi
      sleep 0.05
    done
    # The subshell exec'd GNU time, whose child is npm: SIGTERM to npm reaches the server (package.json's `exec node`).
    kill -TERM "$(pgrep -P "$runner")"
    wait "$runner" || true
    peak=$(sed -n 's/.*peak_kib=\([0-9]*\).*/\1/p' "$log")
    seed=$([ -f "$checkout/dist/drizzle/pglite-seed.tar.gz" ] && echo 'seed built' || echo 'no seed')
    echo "round $round  $checkout  listening ${listening:-?} ms  healthy $healthy ms  peak $((${peak:-0} / 1024)) MiB  $seed"
    rm -f "$log"
    port=$((port + 1))
  done
done
