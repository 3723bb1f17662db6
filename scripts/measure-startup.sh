#!/usr/bin/env bash
# Cold start to the first healthy answer (wall time and the server's CPU), RSS after start and its
# peak, and the shutdown behaviour, measured on a real process:
#   scripts/measure-startup.sh [pglite|pglite-existing|pglite-memory|postgres]
#   pglite           a fresh DATA_DIR in a temporary folder (the default)
#   pglite-existing  a DATA_DIR that a first (unmeasured) start created and migrated
#   pglite-memory    DATA_DIR=memory://
#   postgres         a fresh database created next to $MEASURE_DATABASE_URL
#                    (default postgres://postgres@127.0.0.1:5432/postgres) and dropped after
# MEASURE_START_ONLY=1 stops after the start figures (CI's smoke test of the compiled server).
# MEASURE_SERVER (default: the compiled server, `node dist/src/main.js`, when it is built, else tsx on
# src/main.ts) is the command that starts the server.
# It also checks that a 2 MB POST over a real socket gets 413 and the server stays healthy, and that
# SIGTERM in the middle of a burst of requests lets the accepted ones finish and the process exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-pglite}"
admin_url="${MEASURE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
scratch="$(mktemp -d)"
pid=""
db_name=""

pg_admin() {
  node --input-type=module -e '
    import postgres from "postgres";
    const sql = postgres(process.argv[1], { max: 1, onnotice: () => {} });
    try { await sql.unsafe(process.argv[2]); } finally { await sql.end(); }
  ' "$admin_url" "$1"
}
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$db_name" ]; then pg_admin "drop database if exists ${db_name} with (force)" || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
base="http://127.0.0.1:${port}"
env_vars=(PORT="$port" HOST=127.0.0.1 LOG_LEVEL=info)
case "$mode" in
  pglite | pglite-existing) env_vars+=(DATA_DIR="$scratch/data") ;;
  pglite-memory) env_vars+=(DATA_DIR="memory://") ;;
  postgres)
    db_name="slowdns_measure_${RANDOM}$$"
    pg_admin "create database ${db_name}"
    # As a deployment on PostgreSQL must: the signing key is kept sealed (REQUIRE_KEY_ENCRYPTION's default there).
    kek="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))')"
    env_vars+=(DATABASE_URL="${admin_url%/*}/${db_name}" KEY_ENCRYPTION_KEY="$kek")
    ;;
  *) echo "usage: $0 [pglite|pglite-existing|pglite-memory|postgres]" >&2; exit 2 ;;
esac

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

# node itself rather than `npm start`: then $pid is the server, not a wrapper.
if [ -n "${MEASURE_SERVER:-}" ]; then read -r -a server <<<"$MEASURE_SERVER"
elif [ -f dist/src/main.js ]; then server=(node --max-semi-space-size=16 dist/src/main.js)
else server=(node --import tsx src/main.ts); fi

if [ "$mode" = pglite-existing ]; then
  # A first start creates and migrates the folder; it is stopped before the measured start.
  env "${env_vars[@]}" "${server[@]}" >"$scratch/first.log" 2>&1 &
  pid=$!
  until curl -fsS -o /dev/null "$base/api/v2/healthz" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then cat "$scratch/first.log"; echo "first start failed" >&2; exit 1; fi
    sleep 0.05
  done
  kill -TERM "$pid"; wait "$pid" || true; pid=""
fi

start_ms="$(ms_now)"
env "${env_vars[@]}" "${server[@]}" >"$scratch/server.log" 2>&1 &
pid=$!
until curl -fsS -o /dev/null "$base/api/v2/healthz" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then cat "$scratch/server.log"; echo "server exited during start" >&2; exit 1; fi
  if [ $(( $(ms_now) - start_ms )) -gt 60000 ]; then echo "not healthy after 60 s" >&2; exit 1; fi
  sleep 0.02
done
healthy_ms=$(( $(ms_now) - start_ms ))
# CPU the server used until then (user + system, its threads included): less sensitive than the wall
# time to what else the machine is running.
cpu_ms="$(awk -v tck="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / tck)}' "/proc/$pid/stat")"
sleep 1 # let start-up garbage settle before reading memory
rss_kb="$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")"
hwm_kb="$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")"
echo "database:                 $mode  (server: ${server[*]})"
echo "cold start → healthy:     ${healthy_ms} ms  (process spawn to first 200 from /api/v2/healthz)"
echo "CPU to healthy:           ${cpu_ms} ms  (utime + stime of pid $pid when it first answered; load $(cut -d' ' -f1 /proc/loadavg))"
echo "server's own startup_ms:  $(grep '"msg":"ready"' "$scratch/server.log" | grep -o '"startup_ms":[0-9]*' | cut -d: -f2) ms  (config → ready to serve, as logged)"
echo "RSS after start:          $(( rss_kb / 1024 )) MiB  (VmRSS of pid $pid; peak VmHWM $(( hwm_kb / 1024 )) MiB)"

if [ "${MEASURE_START_ONLY:-}" = 1 ]; then exit 0; fi

# A 2 MB body over a real socket: refused with 413 in the envelope, and the server stays healthy.
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$scratch/big.json"
big_status="$(curl -sS -o "$scratch/big.out" -w '%{http_code}' -H 'content-type: application/json' \
  --data-binary @"$scratch/big.json" "$base/api/v2/healthz" || true)"
health_after="$(curl -sS -o /dev/null -w '%{http_code}' "$base/api/v2/healthz")"
echo "2 MB POST:                HTTP $big_status $(head -c 200 "$scratch/big.out"); healthz after: HTTP $health_after"
if [ "$big_status" != 413 ] || [ "$health_after" != 200 ]; then echo "FAIL: 2 MB POST" >&2; exit 1; fi

# SIGTERM in the middle of a burst of health checks (each one a database round trip): every request
# the server accepted must be answered (200); later ones may be refused; none may be cut off.
cat >"$scratch/burst.mjs" <<'EOF_BURST'
const [base, pid] = [process.argv[2], Number(process.argv[3])];
let signalled = false;
const one = async () => {
  try {
    const res = await fetch(`${base}/api/v2/healthz`);
    if (!signalled) { signalled = true; process.kill(pid, 'SIGTERM'); }
    return res.status === 200 ? 'answered 200' : `answered ${res.status}`;
  } catch (err) {
    const code = err.cause?.code ?? err.message;
    return code === 'ECONNREFUSED' ? 'refused (after close)' : `cut off (${code})`;
  }
};
const results = await Promise.all(Array.from({ length: 300 }, one));
const counts = {};
for (const r of results) counts[r] = (counts[r] ?? 0) + 1;
console.log(JSON.stringify(counts));
process.exitCode = results.some((r) => r.startsWith('cut off') || r === 'answered 500') ? 1 : 0;
EOF_BURST
term_ms="$(ms_now)"
burst_ok=0
burst="$(node "$scratch/burst.mjs" "$base" "$pid")" || burst_ok=$?
exit_code=0
wait "$pid" || exit_code=$?
stop_ms=$(( $(ms_now) - term_ms ))
pid=""
echo "SIGTERM mid-burst:        300 concurrent healthz → $burst; server exit $exit_code, ${stop_ms} ms after the burst began"
if [ "$exit_code" != 0 ] || [ "$burst_ok" != 0 ]; then tail -5 "$scratch/server.log"; echo "FAIL: graceful shutdown" >&2; exit 1; fi
