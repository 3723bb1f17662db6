#!/usr/bin/env bash
# A primary and its streaming replica on 127.0.0.1 for the read-replica test (DESIGN §21): initdb with
# wal_level=replica, pg_basebackup -R for the standby, both started. PostgreSQL refuses to run as root:
# as root, every command runs as the postgres user (as test/failover/formation.sh does).
#
#   test/replica/replica-pair.sh start DIR PORT     primary on PORT, standby on PORT+1; prints nothing
#   test/replica/replica-pair.sh stop-standby DIR   stops the standby (immediate: as a machine lost)
#   test/replica/replica-pair.sh stop DIR           stops both (even half-started) and removes DIR
set -euo pipefail

bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
if [ "$(id -u)" = 0 ]; then
  as_owner() { runuser -u postgres -- env PATH="$bin:$PATH" "$@"; }
else
  as_owner() { env PATH="$bin:$PATH" "$@"; }
fi

start() {
  local dir="$1" port="$2"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  as_owner initdb -D "$dir/primary" -U postgres --auth=trust --no-sync >"$dir/initdb.log" 2>&1
  cat >>"$dir/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
wal_level = replica
max_wal_senders = 4
fsync = off
shared_buffers = 32MB
CONF
  echo "host replication postgres 127.0.0.1/32 trust" >>"$dir/primary/pg_hba.conf"
  as_owner pg_ctl -D "$dir/primary" -l "$dir/primary.log" -w start >/dev/null
  as_owner pg_basebackup -h 127.0.0.1 -p "$port" -U postgres -D "$dir/standby" -R -X stream -c fast >"$dir/basebackup.log" 2>&1
  cat >>"$dir/standby/postgresql.conf" <<CONF
port = $((port + 1))
hot_standby = on
hot_standby_feedback = off
CONF
  as_owner pg_ctl -D "$dir/standby" -l "$dir/standby.log" -w start >/dev/null
}

stop_standby() {
  as_owner pg_ctl -D "$1/standby" -m immediate -w stop >/dev/null
}

stop() {
  local dir="$1" node
  for node in standby primary; do
    if [ -f "$dir/$node/postmaster.pid" ]; then as_owner pg_ctl -D "$dir/$node" -m immediate -w stop >/dev/null 2>&1 || true; fi
  done
  rm -rf "$dir"
}

case "${1:-}" in
start) start "$2" "$3" ;;
stop-standby) stop_standby "$2" ;;
stop) stop "$2" ;;
*)
  echo "usage: $0 start DIR PORT | stop-standby DIR | stop DIR" >&2
  exit 2
  ;;
esac
