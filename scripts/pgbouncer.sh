#!/usr/bin/env bash
# A PgBouncer in transaction pooling mode in front of a PostgreSQL: what the pooler tests run through,
# and a way to try the service behind a pooler by hand.
#
#   scripts/pgbouncer.sh start   starts one and prints its URL, e.g. postgres://postgres@127.0.0.1:41234/postgres
#   scripts/pgbouncer.sh stop    stops it
#
#   export TEST_POOLER_URL="$(scripts/pgbouncer.sh start)"    # then: npx vitest run test/pooler
#
# Every database name is passed through to the PostgreSQL (`* =` entry), so a database created
# directly on PostgreSQL, or through the pooler, is reachable through it. Server pools are small
# (PGBOUNCER_POOL_SIZE, 4 by default) so that clients really share server connections.
# Settings: PGBOUNCER_PORT (a free port by default), PGBOUNCER_UPSTREAM (127.0.0.1:5432),
# PGBOUNCER_DIR (where its config, log and pid live). Needs Debian's pgbouncer (apt-get install -y pgbouncer).
set -euo pipefail

dir="${PGBOUNCER_DIR:-${TMPDIR:-/tmp}/slowdns-pgbouncer-$(id -u)}"
upstream="${PGBOUNCER_UPSTREAM:-127.0.0.1:5432}"
pool_size="${PGBOUNCER_POOL_SIZE:-4}"
bin="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

running_pid() {
  local pid
  pid="$(cat "$dir/pgbouncer.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

start() {
  if [ ! -x "$bin" ]; then
    echo "pgbouncer is not installed (apt-get install -y pgbouncer)" >&2
    exit 1
  fi
  if [ -n "$(running_pid)" ]; then
    echo "pgbouncer already running from $dir; stop it first: $0 stop" >&2
    exit 1
  fi
  local port="${PGBOUNCER_PORT:-$(free_port)}"
  mkdir -p "$dir"
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=${upstream%:*} port=${upstream##*:}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/userlist.txt
pool_mode = transaction
default_pool_size = ${pool_size}
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 1000
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
EOF
  echo '"postgres" ""' >"$dir/userlist.txt"
  # PgBouncer refuses to run as root: as root (CI), it drops to the postgres user.
  if [ "$(id -u)" = 0 ]; then
    echo "user = postgres" >>"$dir/pgbouncer.ini"
    chown -R postgres "$dir"
  fi
  "$bin" -d "$dir/pgbouncer.ini" >&2
  for _ in $(seq 1 50); do
    if (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
      echo "pgbouncer (transaction pooling, ${pool_size} server connections per database) on 127.0.0.1:${port} in front of ${upstream}" >&2
      echo "postgres://postgres@127.0.0.1:${port}/postgres"
      return 0
    fi
    sleep 0.1
  done
  echo "pgbouncer did not start; its log:" >&2
  tail -n 20 "$dir/pgbouncer.log" >&2 || true
  exit 1
}

stop() {
  local pid
  pid="$(running_pid)"
  if [ -z "$pid" ]; then return 0; fi
  kill "$pid"
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
