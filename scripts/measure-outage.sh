#!/usr/bin/env bash
# Database outages measured on a real process against a PRIVATE PostgreSQL cluster (made here, in a
# temporary folder, and removed after; the shared one is never touched):
#   scripts/measure-outage.sh [all|stop|stall|startup]   (default all)
#   stop     the database stopped for $STOP_SECONDS (default 60) with `pg_ctl stop -m fast`, then started
#   stall    the postmaster and its children stopped with SIGSTOP for $STALL_SECONDS (default 20), then SIGCONT
#   startup  the service started while the database is down for $DOWN_SECONDS (default 20)
# During each outage a bounded loop sends $RATE requests a second (alternating healthz and a
# release of an unknown activation: a database read, not rate-limited), each with a 30 s client timeout, and the summary gives the slowest
# answer during the outage, the seconds from the database's return to the first of 5 healthy answers
# in a row, and whether the service process was alive throughout. Must run as root (or as the
# postgres user) with PostgreSQL 15's binaries in $PG_BIN. Ports: $PG_PORT (18210) and $APP_PORT (18211).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-all}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_PORT="${PG_PORT:-18210}"
APP_PORT="${APP_PORT:-18211}"
STOP_SECONDS="${STOP_SECONDS:-60}"
STALL_SECONDS="${STALL_SECONDS:-20}"
DOWN_SECONDS="${DOWN_SECONDS:-20}"
RATE="${RATE:-4}"
work="$(mktemp -d /tmp/slowdns-outage.XXXXXX)"
chmod 755 "$work"; [ "$(id -u)" = 0 ] && chown postgres "$work"
pgdata="$work/pg"
pid=""
loop_pid=""

as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else bash -c "$*"; fi; }
pg_start() { as_postgres "$PG_BIN/pg_ctl -D $pgdata -l $work/pg.log -w -o '-p $PG_PORT -k $work -c listen_addresses=127.0.0.1' start" >/dev/null; }
pg_stop() { as_postgres "$PG_BIN/pg_ctl -D $pgdata -m fast -w stop" >/dev/null; }
postmaster_pid() { head -1 "$pgdata/postmaster.pid"; }
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
event() { echo "$1 $(ms_now)" >>"$work/events"; }
cleanup() {
  [ -n "$loop_pid" ] && kill "$loop_pid" 2>/dev/null || true
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  if [ -f "$pgdata/postmaster.pid" ]; then
    kill -CONT "$(postmaster_pid)" $(pgrep -P "$(postmaster_pid)" || true) 2>/dev/null || true
    pg_stop || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

as_postgres "$PG_BIN/initdb -D $pgdata -U postgres -A trust" >/dev/null
pg_start
base="http://127.0.0.1:${APP_PORT}"
export DATABASE_URL="postgres://postgres@127.0.0.1:${PG_PORT}/postgres" PORT="$APP_PORT" HOST=127.0.0.1 LOG_LEVEL=warn
# As a deployment on PostgreSQL must: the signing key is kept sealed (REQUIRE_KEY_ENCRYPTION's default there).
KEY_ENCRYPTION_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))')"
export KEY_ENCRYPTION_KEY

start_service() {
  node --import tsx src/main.ts >>"$work/server.log" 2>&1 &
  pid=$!
}
wait_ready() { # seconds to wait; echoes nothing, fails when not ready in time
  local deadline=$(( $(ms_now) + $1 * 1000 ))
  until curl -fsS -o /dev/null "$base/api/v2/readyz" 2>/dev/null; do
    [ "$(ms_now)" -lt "$deadline" ] || { tail -5 "$work/server.log"; echo "not ready in $1 s" >&2; exit 1; }
    sleep 0.05
  done
}

# The request loop: RATE requests a second, never waiting for an answer before sending the next.
cat >"$work/loop.mjs" <<'EOF_LOOP'
import { appendFileSync } from 'node:fs';
const [base, rate, out, seconds] = [process.argv[2], Number(process.argv[3]), process.argv[4], Number(process.argv[5])];
const body = JSON.stringify({ activation_id: 'act_0000000000000000' });
let n = 0;
const stopAt = Date.now() + seconds * 1000;
const tick = setInterval(async () => {
  if (Date.now() > stopAt) return clearInterval(tick);
  const kind = n++ % 2 ? 'release' : 'healthz';
  const sent = Date.now();
  let status;
  try {
    const res = kind === 'healthz'
      ? await fetch(`${base}/api/v2/healthz`, { signal: AbortSignal.timeout(30000) })
      : await fetch(`${base}/api/v2/slowdns/install/release`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30000) });
    status = res.status;
    await res.arrayBuffer();
  } catch (err) { status = `error:${err.cause?.code ?? err.name}`; }
  appendFileSync(out, `${JSON.stringify({ kind, sent, ms: Date.now() - sent, status })}\n`);
}, 1000 / rate);
EOF_LOOP

# Summary of one outage: answers sent between `down` and `up` events, and recovery after `up`.
cat >"$work/summary.mjs" <<'EOF_SUMMARY'
import { readFileSync } from 'node:fs';
const [results, events, name, alive] = process.argv.slice(2);
const ev = Object.fromEntries(readFileSync(events, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([k, v]) => [k, Number(v)]));
const rows = readFileSync(results, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const during = rows.filter((r) => r.sent >= ev[`${name}-down`] && r.sent < ev[`${name}-up`]);
const after = rows.filter((r) => r.sent >= ev[`${name}-up`]).sort((a, b) => a.sent - b.sent);
const statuses = (rs) => Object.entries(rs.reduce((a, r) => ({ ...a, [r.status]: (a[r.status] ?? 0) + 1 }), {})).map(([s, c]) => `${s}×${c}`).join(' ');
let healthyAt;
for (let i = 0; i + 5 <= after.length; i++) if (after.slice(i, i + 5).every((r) => r.status === 200 || r.status === 404)) { healthyAt = after[i].sent + after[i].ms; break; }
const max = during.reduce((m, r) => Math.max(m, r.ms), 0);
console.log(`${name}: ${during.length} requests during the outage (${statuses(during)}), slowest answer ${max} ms; ` +
  `healthy ${healthyAt === undefined ? 'NEVER' : `${((healthyAt - ev[`${name}-up`]) / 1000).toFixed(2)} s`} after the database's return ` +
  `(answers after: ${statuses(after)}); service process alive throughout: ${alive}`);
EOF_SUMMARY

outage() { # name, seconds, down-command, up-command
  local name="$1" seconds="$2"
  : >"$work/$name.jsonl"
  node "$work/loop.mjs" "$base" "$RATE" "$work/$name.jsonl" $(( seconds + 15 )) &
  loop_pid=$!
  sleep 3
  event "$name-down"; eval "$3"
  sleep "$seconds"
  eval "$4"; event "$name-up"
  wait "$loop_pid"; loop_pid=""
  local alive=yes
  kill -0 "$pid" 2>/dev/null || alive=no
  node "$work/summary.mjs" "$work/$name.jsonl" "$work/events" "$name" "$alive"
}

stall_down() { pm="$(postmaster_pid)"; kill -STOP "$pm" $(pgrep -P "$pm"); }
stall_up() { kill -CONT "$pm" $(pgrep -P "$pm"); }

if [ "$mode" = all ] || [ "$mode" = stop ] || [ "$mode" = stall ]; then
  start_service
  wait_ready 60
  if [ "$mode" != stall ]; then outage stop "$STOP_SECONDS" pg_stop pg_start; fi
  if [ "$mode" != stop ]; then outage stall "$STALL_SECONDS" stall_down stall_up; fi
  kill -TERM "$pid"; wait "$pid" || true; pid=""
fi

if [ "$mode" = all ] || [ "$mode" = startup ]; then
  pg_stop
  started="$(ms_now)"
  start_service
  # Listening at once while the database is down: liveness 200, readiness 503.
  until curl -fsS -o /dev/null "$base/api/v2/livez" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { tail -3 "$work/server.log"; echo "startup: the service exited with the database down" >&2; exit 1; }
    sleep 0.05
  done
  live_ms=$(( $(ms_now) - started ))
  ready_status="$(curl -sS -o /dev/null -w '%{http_code}' "$base/api/v2/readyz")"
  sleep "$DOWN_SECONDS"
  alive=yes; kill -0 "$pid" 2>/dev/null || alive=no
  pg_start; up="$(ms_now)"
  wait_ready 30
  echo "startup: listening (livez 200) ${live_ms} ms after spawn with the database down; readyz then: HTTP $ready_status;" \
    "alive after ${DOWN_SECONDS} s: $alive; ready $(( $(ms_now) - up )) ms after the database was up (pg_ctl start -w returned)"
  echo "startup attempts logged: $(grep -c '"database not ready' "$work/server.log" || true)"
  kill -TERM "$pid"; wait "$pid" || true; pid=""
fi
