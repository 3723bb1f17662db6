# Shared set-up of the activate.sh tests: a real service on a free port with a fresh database, and per
# test a fresh client address (through TRUST_PROXY and curl's own ~/.curlrc), machine and state file.

ACTIVATE_SH="$BATS_TEST_DIRNAME/../activate.sh"
REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)"

# build_service: the compiled server (dist/) as `npm start` builds it, once, before services start.
build_service() { (cd "$REPO_ROOT" && node scripts/build.mjs --if-stale >/dev/null); }

# start_service <name> [VAR=value...]: starts the service as `npm start` runs it (the compiled server),
# sets <name>_URL and <name>_PID once it is ready (it listens first and answers 503 until its database
# is open and migrated). Its PUBLIC_BASE_URL is the address the tests reach it at: the origin a machine proof signs.
start_service() {
  name=$1
  shift
  log="$BATS_FILE_TMPDIR/$name.log"
  free_port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
  (cd "$REPO_ROOT" && env PORT="$free_port" PUBLIC_BASE_URL="http://127.0.0.1:$free_port" HOST=127.0.0.1 DATA_DIR=memory:// TRUST_PROXY=1 LOG_LEVEL=info \
    DATABASE_URL="${SLOWDNS_TEST_DATABASE_URL:-}" "$@" node --max-semi-space-size=16 scripts/start.mjs >"$log" 2>&1) &
  pid=$!
  echo "$pid" >"$BATS_FILE_TMPDIR/$name.pid"
  for _ in $(seq 1 1800); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$log" | head -n 1)
    [ -n "$port" ] && grep -q '"msg":"ready"' "$log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.1
  done
  [ -n "$port" ] && grep -q '"msg":"ready"' "$log" || { cat "$log" >&2; return 1; }
  eval "${name}_URL=http://127.0.0.1:$port; ${name}_PID=$pid"
  export "${name}_URL" "${name}_PID"
}

stop_service() { # stop_service <pid>
  pkill -TERM -P "$1" 2>/dev/null || true
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# Per test: its own HOME (curl reads ~/.curlrc: a fresh X-Forwarded-For address, so no rate limit is
# shared between tests), machine id, SSH host key and state file.
fresh_installer() {
  export HOME="$BATS_TEST_TMPDIR/home"
  mkdir -p "$HOME"
  client_ip="198.51.$((RANDOM % 200 + 1)).$((RANDOM % 250 + 1))"
  printf 'header = "X-Forwarded-For: %s"\n' "$client_ip" >"$HOME/.curlrc"
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$BATS_TEST_TMPDIR/machine-id"
  ssh-keygen -q -t ed25519 -N '' -C "test@host" -f "$BATS_TEST_TMPDIR/ssh_host_ed25519_key" </dev/null >/dev/null
  export SLOWDNS_URL="$SERVICE_URL"
  export SLOWDNS_MACHINE_ID_FILE="$BATS_TEST_TMPDIR/machine-id"
  export SLOWDNS_SSH_HOST_KEY="$BATS_TEST_TMPDIR/ssh_host_ed25519_key.pub"
  export SLOWDNS_STATE_FILE="$BATS_TEST_TMPDIR/state/activation.state"
  export SLOWDNS_HOSTNAME=vpn1.example.net
  export SLOWDNS_PUBLIC_IP=203.0.113.7
  export SLOWDNS_RETRY_BASE_SECONDS=0
  # The approval wait asks again after 1 s, not the service's Retry-After of 5 (its 429s in between are
  # part of what the script handles).
  export SLOWDNS_MAX_WAIT_SECONDS=1
  unset SLOWDNS_INSTALL_CODE SLOWDNS_INSTALL_CODE_FILE SLOWDNS_NO_JQ SLOWDNS_AGENT_TOKEN_FILE
  # English, whatever the locale of whoever runs the suite: the tests of other languages set theirs (env LANG=…).
  unset LC_ALL LC_MESSAGES
  export LANG=C.UTF-8
}

# The operator token of the main service (its ADMIN_TOKEN), for the codes an operator issues.
export BATS_ADMIN_TOKEN=bats-operator-0123456789abcdef0123456789

# fleet_code <json>: a new fleet code (POST /api/v2/admin/install-codes), its code alone.
fleet_code() {
  printf 'header = "Authorization: Bearer %s"\n' "$BATS_ADMIN_TOKEN" >"$BATS_TEST_TMPDIR/admin.curlrc"
  curl -fsS -K "$BATS_TEST_TMPDIR/admin.curlrc" -H 'content-type: application/json' --data "$1" \
    "$SERVICE_URL/api/v2/admin/install-codes" | sed -n 's/.*"install_code":"\([^"]*\)".*/\1/p'
}

# issue_code [url]: a new install code, as the page gets it (a browser session, then issue).
issue_code() {
  url=${1:-$SERVICE_URL}
  jar="$BATS_TEST_TMPDIR/cookies.$RANDOM"
  # A browser of its own: the issue limit counts browsers by their headers too.
  agent="bats-browser/$RANDOM$RANDOM"
  curl -fsS -A "$agent" -c "$jar" -o /dev/null "$url/slowdns"
  curl -fsS -A "$agent" -b "$jar" -X POST -H "Origin: $url" "$url/api/v2/slowdns/code/issue" | sed -n 's/.*"install_code":"\([^"]*\)".*/\1/p'
}

# precheck_status <code>: the HTTP status of a raw precheck of <code> on a machine nobody uses (200: issued).
precheck_status() {
  curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' \
    --data-binary "{\"install_code\":\"$1\",\"machine_id\":\"$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')\",\"ssh_fingerprint\":\"SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8\",\"product\":\"slowdns\",\"installer_version\":\"2026.11.22.1\"}" \
    "$SERVICE_URL/api/v2/slowdns/install/precheck"
}

state_value() { sed -n "s/^$1=//p" "$SLOWDNS_STATE_FILE"; }

wait_for_line() { # wait_for_line <text> <file>: until the file holds a line with <text> (at most 30 s)
  for _ in $(seq 1 300); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done
  echo "no \"$1\" in $2 after 30 s" >&2
  return 1
}

wait_for_file() { # wait_for_file <file>: until it exists and is not empty (at most 30 s)
  for _ in $(seq 1 300); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "no $1 after 30 s" >&2
  return 1
}

gone() { ! kill -0 "$1" 2>/dev/null; } # gone <pid>: no such process (any more)

# issue_code_waiting [url]: like issue_code, with {"require_approval": true}: a machine waits for the
# person's approval. The browser (cookie jar, user agent) and the answer stay in $BATS_TEST_TMPDIR for decide.
issue_code_waiting() {
  url=${1:-$SERVICE_URL}
  browser_agent="bats-browser/$RANDOM$RANDOM"
  echo "$browser_agent" >"$BATS_TEST_TMPDIR/browser-agent"
  curl -fsS -A "$browser_agent" -c "$BATS_TEST_TMPDIR/browser-cookies" -o /dev/null "$url/slowdns"
  curl -fsS -A "$browser_agent" -b "$BATS_TEST_TMPDIR/browser-cookies" -X POST -H "Origin: $url" -H 'content-type: application/json' \
    --data '{"require_approval":true}' "$url/api/v2/slowdns/code/issue" >"$BATS_TEST_TMPDIR/issued.json"
  sed -n 's/.*"install_code":"\([^"]*\)".*/\1/p' "$BATS_TEST_TMPDIR/issued.json"
}

# decide <approve|deny>: as the person on the page, waits (at most 30 s) for a machine's precheck of the
# code issue_code_waiting got, then approves or denies it.
decide() {
  agent=$(cat "$BATS_TEST_TMPDIR/browser-agent")
  id=$(sed -n 's/.*"install_code_id":"\([^"]*\)".*/\1/p' "$BATS_TEST_TMPDIR/issued.json")
  precheck=''
  for _ in $(seq 1 300); do
    precheck=$(curl -fsS -A "$agent" -b "$BATS_TEST_TMPDIR/browser-cookies" "$SERVICE_URL/api/v2/slowdns/code/status" |
      grep -o '"precheck_id":"pc_[0-9a-f]*"' | head -n 1 | sed 's/.*"\(pc_[0-9a-f]*\)"/\1/')
    [ -n "$precheck" ] && break
    sleep 0.1
  done
  [ -n "$precheck" ] || { echo "no precheck of $id on the page after 30 s" >&2; return 1; }
  curl -fsS -A "$agent" -b "$BATS_TEST_TMPDIR/browser-cookies" -X POST -H "Origin: $SERVICE_URL" -H 'content-type: application/json' \
    --data "{\"install_code_id\":\"$id\",\"precheck_id\":\"$precheck\"}" "$SERVICE_URL/api/v2/slowdns/code/$1" >/dev/null
}
