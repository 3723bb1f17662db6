#!/usr/bin/env bash
# A newcomer's first `npm start` (issue 59, point 10; docs/measurements.md): for each checkout given, taking
# turns round by round so that the machine's load falls on all of them, the checkout is put back as a fresh
# clone leaves it (no dist/, no data/; its node_modules as `npm ci` left it), then `npm start` is timed from
# the command to the first answer of /api/v2/livez (listening) and to the first 200 of /api/v2/healthz (the
# database migrated, the service healthy). Then, as the guides' walk goes on, "Try it locally"'s start
# (`RATE_LIMIT_PROFILE=development DATA_DIR=memory:// npm start`: a fresh in-memory database) is timed the same
# way. The peak memory is the largest process of the tree (GNU time's maximum resident set size: npm, or the
# server's node); the CPU is the whole tree's, user and system, to the stop (less swayed by the machine's load
# than the wall clock). Each server is stopped with SIGTERM before the next start.
#   test/bench/first-npm-start.sh ROUNDS CHECKOUT...
# One line per start: round, checkout, which start, listening ms, healthy ms, peak MiB, CPU s, whether dist/ has a seed.
set -euo pipefail
rounds=$1
shift
port=18950
now_ms() { date +%s%3N; }

# start_once CHECKOUT LABEL [VAR=value...]: one `npm start` in CHECKOUT with those variables, timed, then stopped.
start_once() {
  local checkout=$1 label=$2
  shift 2
  local log started runner listening='' healthy='' peak cpu seed
  log=$(mktemp)
  started=$(now_ms)
  (cd "$checkout" && exec env PORT=$port "$@" /usr/bin/time -f 'peak_kib=%M cpu_s=%U+%S' npm start >"$log" 2>&1) &
  runner=$!
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
  # The subshell exec'd env, which exec'd GNU time, whose child is npm: SIGTERM to npm reaches the server
  # (package.json's `exec node`).
  kill -TERM "$(pgrep -P "$runner")"
  wait "$runner" || true
  peak=$(sed -n 's/.*peak_kib=\([0-9]*\).*/\1/p' "$log")
  cpu=$(sed -n 's/.*cpu_s=\([0-9.+]*\).*/\1/p' "$log" | bc)
  seed=$([ -f "$checkout/dist/drizzle/pglite-seed.tar.gz" ] && echo 'seed in dist/' || echo 'no seed')
  echo "round $round  $checkout  $label  listening ${listening:-?} ms  healthy $healthy ms  peak $((${peak:-0} / 1024)) MiB  cpu ${cpu:-?} s  $seed"
  rm -f "$log"
  port=$((port + 1))
}

for round in $(seq 1 "$rounds"); do
  for checkout in "$@"; do
    rm -rf "$checkout/dist" "$checkout/data"
    start_once "$checkout" 'first npm start'
    start_once "$checkout" 'then memory://' RATE_LIMIT_PROFILE=development DATA_DIR=memory://
  done
done
