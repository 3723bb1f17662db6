#!/usr/bin/env bash
# A pg_auto_failover formation on 127.0.0.1 for the failover test (DESIGN §20): a monitor and two nodes,
# synchronous replication, the tuned timeouts that give a ~12 s failover. Run as root: pg_autoctl refuses
# root, so every pg_autoctl and psql runs as the postgres user.
#
#   test/failover/formation.sh start DIR BASEPORT   prints the URL `pg_autoctl show uri` gives for the formation
#   test/failover/formation.sh primary DIR          prints the port of the node that is primary now
#   test/failover/formation.sh kill DIR PORT        kill -9 of that node: its pg_autoctl and its PostgreSQL
#   test/failover/formation.sh stop DIR             stops everything under DIR (even half-started) and removes DIR
#
# Needs Debian's postgresql-15-auto-failover and pg-auto-failover-cli.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
as_postgres() { runuser -u postgres -- env PATH="$bin:$PATH" "$@"; }

monitor_sql() {
  as_postgres psql -X -q -At -h 127.0.0.1 -p "$(cat "$1/monitor.port")" -d pg_auto_failover -c "$2"
}

wait_for() { # seconds description command...
  local seconds="$1" what="$2"
  shift 2
  for _ in $(seq $((seconds * 4))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  echo "formation: timed out waiting for $what" >&2
  return 1
}

run_keeper() { # dir name: in a process group of its own (its pid), so that kill -9 reaches all of it
  setsid runuser -u postgres -- env PATH="$bin:$PATH" pg_autoctl run --pgdata "$1/$2" >"$1/$2.log" 2>&1 &
  echo $! >"$1/$2.pid"
}

state_is() { # dir node_port state
  [ "$(monitor_sql "$1" "select reportedstate from pgautofailover.node where nodeport = $2")" = "$3" ]
}

start() {
  local dir="$1" base="$2"
  local monitor_port="$base" port1=$((base + 1)) port2=$((base + 2))
  mkdir -p "$dir"
  chown postgres: "$dir"
  echo "$monitor_port" >"$dir/monitor.port"
  local common=(--hostname 127.0.0.1 --auth trust --no-ssl --pgctl "$bin/pg_ctl")
  as_postgres pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$monitor_port" "${common[@]}" \
    >"$dir/create-monitor.log" 2>&1
  run_keeper "$dir" monitor
  wait_for 30 "the monitor" monitor_sql "$dir" 'select 1'
  # The timeouts of DESIGN §20: the monitor notices in ~5 s and promotes without waiting ~30 s more.
  local setting
  for setting in health_check_period=1000 health_check_timeout=1000 health_check_max_retries=1 \
    health_check_retry_delay=500 node_considered_unhealthy_timeout=4000 primary_demote_timeout=8000; do
    monitor_sql "$dir" "alter system set pgautofailover.${setting%%=*} = ${setting#*=}" >/dev/null
  done
  monitor_sql "$dir" 'select pg_reload_conf()' >/dev/null
  local monitor_url="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"
  local n=1
  for port in "$port1" "$port2"; do
    echo "$port" >"$dir/node$n.port"
    as_postgres pg_autoctl create postgres --pgdata "$dir/node$n" --pgport "$port" --name "node$n" \
      --username postgres --dbname slowdns --listen 127.0.0.1 --monitor "$monitor_url" "${common[@]}" >"$dir/create-node$n.log" 2>&1
    as_postgres pg_autoctl config set --pgdata "$dir/node$n" timeout.network_partition_timeout 5 >/dev/null
    run_keeper "$dir" "node$n"
    if [ "$n" = 1 ]; then
      wait_for 60 "node1 primary" state_is "$dir" "$port1" single
      wait_for 30 "node1 to accept connections" as_postgres psql -X -h 127.0.0.1 -p "$port1" -d slowdns -c 'select 1'
      # A checkpoint now lets the standby's base backup start at once instead of after a spread checkpoint.
      as_postgres psql -X -q -h 127.0.0.1 -p "$port1" -d slowdns -c 'checkpoint' >/dev/null
    fi
    n=$((n + 1))
  done
  wait_for 90 "node1 primary with node2 secondary" \
    sh -c "[ \"\$(runuser -u postgres -- psql -X -At -h 127.0.0.1 -p $monitor_port -d pg_auto_failover -c \"select string_agg(reportedstate::text, ',' order by nodeport) from pgautofailover.node\")\" = primary,secondary ]"
  as_postgres pg_autoctl show uri --pgdata "$dir/monitor" --formation default
}

primary() { # the node the monitor reports accepting writes: primary, or wait_primary while its standby is away
  monitor_sql "$1" "select nodeport from pgautofailover.node
    where reportedstate in ('single', 'primary', 'wait_primary') and goalstate = reportedstate"
}

kill_node() { # dir port: the node's keeper and its PostgreSQL, as a machine would lose them
  local dir="$1" port="$2" node
  for node in node1 node2; do
    if [ "$(cat "$dir/$node.port")" = "$port" ]; then
      local keeper postmaster
      keeper="$(cat "$dir/$node.pid")"
      postmaster="$(head -n 1 "$dir/$node/postmaster.pid")"
      # The postmaster's children too (backends, walsender): killed alone, it leaves them serving for a moment.
      # shellcheck disable=SC2046
      kill -9 -- "-$keeper" "$postmaster" $(ps -o pid= --ppid "$postmaster") 2>/dev/null || true
      echo "$node"
      return 0
    fi
  done
  echo "formation: no node on port $port" >&2
  return 1
}

stop() {
  local dir="$1" name pid postgres=()
  # Each PostgreSQL and its processes, found while they are still its children: killed alone, a postmaster
  # leaves them to init, and the monitor's health-check worker (with its logger) then runs on for good.
  for name in node1 node2 monitor; do
    pid="$(head -n 1 "$dir/$name/postmaster.pid" 2>/dev/null || true)"
    # A stale file's pid may be another's now: only a postgres user's process, and its children, are taken.
    if [ -n "$pid" ] && [ "$(ps -o user= -p "$pid" 2>/dev/null || true)" = postgres ]; then
      mapfile -t -O "${#postgres[@]}" postgres < <(echo "$pid"; pgrep -u postgres -P "$pid" || true)
    fi
  done
  for name in node1 node2 monitor; do
    pid="$(cat "$dir/$name.pid" 2>/dev/null || true)"
    if [ -n "$pid" ]; then kill -9 -- "-$pid" 2>/dev/null || true; fi
  done
  if [ "${#postgres[@]}" -gt 0 ]; then kill -9 "${postgres[@]}" 2>/dev/null || true; fi
  sleep 0.5
  # pg_autoctl keeps each node's configuration and state under the postgres user's home, by PGDATA.
  rm -rf "$dir" "/var/lib/postgresql/.config/pg_autoctl$dir" "/var/lib/postgresql/.local/share/pg_autoctl$dir"
}

case "${1:-}" in
start) start "$2" "$3" ;;
primary) primary "$2" ;;
kill) kill_node "$2" "$3" ;;
stop) stop "$2" ;;
*)
  echo "usage: $0 start DIR BASEPORT | primary DIR | kill DIR PORT | stop DIR" >&2
  exit 2
  ;;
esac
