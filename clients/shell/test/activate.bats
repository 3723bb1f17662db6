#!/usr/bin/env bats
# activate.sh against the real service (the compiled server on a free port, a fresh in-memory database):
# the whole flow, every exit code of the README's table provoked for real, signals, resume, secrets.

load helpers

setup_file() {
  build_service
  # The main service (installers older than 2026.1.1.1 are outdated) and one whose codes live 1 second.
  start_service SERVICE MIN_INSTALLER_VERSION=2026.1.1.1 ADMIN_TOKEN="$BATS_ADMIN_TOKEN" &
  start_service SHORT INSTALL_CODE_TTL_SECONDS=1 &
  wait
  # Started in subshells: read their URLs back from the logs.
  for name in SERVICE SHORT; do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$BATS_FILE_TMPDIR/$name.log" | head -n 1)
    [ -n "$port" ] || { cat "$BATS_FILE_TMPDIR/$name.log" >&3; return 1; }
    export "${name}_URL=http://127.0.0.1:$port"
  done
}

teardown_file() {
  for pid_file in "$BATS_FILE_TMPDIR"/*.pid; do
    [ -f "$pid_file" ] && stop_service "$(cat "$pid_file")"
  done
}

setup() {
  fresh_installer
}

teardown() {
  # A failed test may leave its background script and its install command's processes running: end them.
  [ -z "${BATS_TEST_COMPLETED:-}" ] || return 0
  for p in ${pid:-} ${first:-} $(cat "$BATS_TEST_TMPDIR"/child "$BATS_TEST_TMPDIR"/grandchild "$BATS_TEST_TMPDIR"/orphan "$BATS_TEST_TMPDIR"/runs 2>/dev/null); do
    kill -KILL "$p" 2>/dev/null || true
  done
}

@test "run: precheck, activate, the install command, confirm; exit 0 and the install is confirmed" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- sh -c 'test -n "$SLOWDNS_ACTIVATION_ID" && touch "$BATS_TEST_TMPDIR/installed"'
  echo "$output"
  [ "$status" -eq 0 ]
  [ -f "$BATS_TEST_TMPDIR/installed" ]
  [[ "$output" == *"install confirmed"* ]]
  run sh "$ACTIVATE_SH" status
  [ "$status" -eq 0 ]
  [[ "$output" == *"status=confirmed"* ]]
}

@test "run works without jq (sed reads the answers), with the same result" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)" SLOWDNS_NO_JQ=1
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* ]]
  [[ "$output" == *"hostname=vpn1.example.net"* ]]
}

@test "step by step: precheck, activate, status, register, confirm; a rerun learns it is confirmed" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)" SLOWDNS_AGENT_TOKEN_FILE="$BATS_TEST_TMPDIR/agent-token"
  run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 0 ]
  [[ "$output" == *"is valid for this machine (the service sees it at $client_ip)"* ]]
  run sh "$ACTIVATE_SH" activate
  [ "$status" -eq 0 ]
  [[ "$output" == *"not 203.0.113.7"* ]] # the observed address differs: said, not refused
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=activated"* && "$output" == *"release_restores_code=true"* && "$output" == *"server_registered=false"* ]]
  run sh "$ACTIVATE_SH" register
  [ "$status" -eq 0 ]
  [ "$(wc -c <"$SLOWDNS_AGENT_TOKEN_FILE")" -gt 40 ]
  [ "$(stat -c %a "$SLOWDNS_AGENT_TOKEN_FILE")" = 600 ]
  run sh "$ACTIVATE_SH" confirm
  [ "$status" -eq 0 ]
  run sh "$ACTIVATE_SH" run -- false
  [ "$status" -eq 0 ]
  [[ "$output" == *"already confirmed"* ]]
}

@test "the state file is private (umask 077) and holds only key=value lines of shell-safe values" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" precheck
  run sh "$ACTIVATE_SH" activate
  [ "$(stat -c %a "$SLOWDNS_STATE_FILE")" = 600 ]
  if grep -qv '^[a-z_]*=[A-Za-z0-9._-]*$' "$SLOWDNS_STATE_FILE"; then false; fi
  [ -n "$(state_value activation_id)" ]
}

@test "the install code is read from a file, or from the terminal when stdin is a pipe" {
  printf '  %s \n' "$(issue_code)" >"$BATS_TEST_TMPDIR/code"
  chmod 600 "$BATS_TEST_TMPDIR/code"
  SLOWDNS_INSTALL_CODE_FILE="$BATS_TEST_TMPDIR/code" run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 0 ]
  command -v script >/dev/null || skip 'no script(1) for a terminal'
  code="$(issue_code)"
  rm -f "$SLOWDNS_STATE_FILE"
  # script(1) gives the command a terminal; the code typed there is read from /dev/tty.
  run sh -c "printf '%s\n' '$code' | script -qec 'echo piped | sh $ACTIVATE_SH precheck' /dev/null"
  echo "$output"
  [[ "$output" == *"is valid for this machine"* ]]
  [ -n "$(state_value precheck_token)" ]
}

@test "exit 2: usage, and no install code without a terminal" {
  run sh "$ACTIVATE_SH" frobnicate
  [ "$status" -eq 2 ]
  run setsid sh "$ACTIVATE_SH" precheck </dev/null
  [ "$status" -eq 2 ]
  [[ "$output" == *"no install code"* ]]
}

@test "exit 10: the code does not exist" {
  SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 10 ]
  [[ "$output" == *"install_code_not_found"* ]]
}

@test "exit 11: the code has expired" {
  export SLOWDNS_URL="$SHORT_URL" SLOWDNS_INSTALL_CODE="$(issue_code "$SHORT_URL")"
  sleep 2
  run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 11 ]
}

@test "exit 12: the code is in use by another activation" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  sh "$ACTIVATE_SH" precheck
  sh "$ACTIVATE_SH" activate
  SLOWDNS_STATE_FILE="$BATS_TEST_TMPDIR/other.state" run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 12 ]
  [[ "$output" == *"cloned from an image"* ]]
}

@test "exit 13: activate on another machine than the precheck's" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  sh "$ACTIVATE_SH" precheck
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$SLOWDNS_MACHINE_ID_FILE"
  run sh "$ACTIVATE_SH" activate
  [ "$status" -eq 13 ]
  [[ "$output" == *"machine_mismatch"* && "$output" == *"systemd-machine-id-setup"* ]]
}

@test "exit 14: an install token that is not the activation's" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  sh "$ACTIVATE_SH" precheck
  sh "$ACTIVATE_SH" activate
  sed -i 's/^install_token=\(.*\)....$/install_token=\1AAAA/' "$SLOWDNS_STATE_FILE"
  run sh "$ACTIVATE_SH" confirm
  [ "$status" -eq 14 ]
  [[ "$output" == *"install_token_invalid"* ]]
}

@test "exit 15: release after confirm" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  sh "$ACTIVATE_SH" run -- true
  run sh "$ACTIVATE_SH" release
  [ "$status" -eq 15 ]
  [[ "$output" == *"activation_confirmed"* ]]
}

@test "exit 20: rate limited, never retried, says in words when to run again" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  for _ in 1 2 3 4 5 6 7 8 9 10; do sh "$ACTIVATE_SH" precheck 2>/dev/null; done
  run sh "$ACTIVATE_SH" precheck
  echo "$output"
  [ "$status" -eq 20 ]
  [[ "$output" =~ "run it again in "[0-9]+" "(hour|minute) ]]
  [[ "$output" != *"trying again"* ]]
}

@test "exit 21: the installer is outdated" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)" SLOWDNS_INSTALLER_VERSION=2025.12.31.1
  run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 21 ]
}

@test "exit 30: no answer, after retries with backoff" {
  export SLOWDNS_URL=http://127.0.0.1:9 SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 SLOWDNS_MAX_RETRIES=2
  run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 30 ]
  [ "$(grep -c 'no answer; trying again' <<<"$output")" -eq 2 ]
}

@test "exit 31: a service that keeps answering 503 is retried, honouring Retry-After, then given up on" {
  node -e '
    const http = require("node:http"); let n = 0;
    const s = http.createServer((q, r) => { n++; require("node:fs").writeFileSync(process.argv[1], String(n));
      r.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      r.end(JSON.stringify({ error: { code: "service_unavailable", message: "The service cannot reach its database right now. Try again shortly." } })); });
    s.listen(0, "127.0.0.1", () => console.log(s.address().port));
    setTimeout(() => process.exit(0), 60000);' "$BATS_TEST_TMPDIR/count" >"$BATS_TEST_TMPDIR/port" &
  stub=$!
  while [ ! -s "$BATS_TEST_TMPDIR/port" ]; do sleep 0.1; done
  export SLOWDNS_URL="http://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/port")" SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 SLOWDNS_MAX_RETRIES=2
  started=$(date +%s)
  run sh "$ACTIVATE_SH" precheck
  kill "$stub"
  [ "$status" -eq 31 ]
  [ "$(cat "$BATS_TEST_TMPDIR/count")" -eq 3 ]
  [ $(($(date +%s) - started)) -ge 2 ] # two waits of Retry-After: 1
  [[ "$output" == *"service_unavailable"* ]]
}

@test "exit 40: the install command failed; the activation is released and the code restored" {
  code="$(issue_code)"
  SLOWDNS_INSTALL_CODE="$code" run sh "$ACTIVATE_SH" run -- sh -c 'exit 3'
  [ "$status" -eq 40 ]
  [[ "$output" == *"failed (exit 3)"* && "$output" == *"the install code can be used again"* ]]
  [ ! -f "$SLOWDNS_STATE_FILE" ]
  [ "$(precheck_status "$code")" = 200 ]
}

@test "kill -TERM mid-install: released, code restored, exit 143; no secret in the process list or output" {
  code="$(issue_code)"
  SLOWDNS_INSTALL_CODE="$code" sh "$ACTIVATE_SH" run -- sh -c 'touch "$0/started"; sleep 30' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do [ -f "$BATS_TEST_TMPDIR/started" ] && break; sleep 0.1; done
  [ -f "$BATS_TEST_TMPDIR/started" ]
  token="$(state_value install_token)"
  [ -n "$token" ]
  processes="$(ps -eo args)"
  [[ "$processes" != *"$code"* && "$processes" != *"$token"* ]]
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  cat "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 143 ]
  grep -q 'the install code can be used again' "$BATS_TEST_TMPDIR/out"
  if grep -q -e "$code" -e "$token" "$BATS_TEST_TMPDIR/out"; then false; fi
  [ ! -f "$SLOWDNS_STATE_FILE" ]
  [ "$(precheck_status "$code")" = 200 ]
}

@test "a killed run (SIGKILL) is resumed by the next run with the same state file" {
  SLOWDNS_INSTALL_CODE="$(issue_code)" sh "$ACTIVATE_SH" run -- sh -c 'echo $$ >"$0/child"; sleep 30' "$BATS_TEST_TMPDIR" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do [ -s "$BATS_TEST_TMPDIR/child" ] && break; sleep 0.1; done
  kill -KILL "$pid" "$(cat "$BATS_TEST_TMPDIR/child")"
  wait "$pid" || true
  [ "$(state_value stage)" = activated ]
  # No code this time: the state file is enough to resume.
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"resuming activation"* && "$output" == *"install confirmed"* ]]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* ]]
}

@test "one run per state file: a second run (or release) during an install exits 2 with one line naming the running one; the install command runs once" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  dir=$BATS_TEST_TMPDIR
  sh "$ACTIVATE_SH" run -- sh -c 'echo "$$" >>"$0/runs"; while [ ! -f "$0/go" ]; do sleep 0.1; done' "$dir" >"$dir/first.out" 2>&1 &
  first=$!
  wait_for_file "$dir/runs"
  run sh "$ACTIVATE_SH" run -- sh -c 'echo "$$" >>"$0/runs"' "$dir"
  echo "$output"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"(process $first)"* ]]
  run sh "$ACTIVATE_SH" release
  [ "$status" -eq 2 ]
  [[ "$output" == *"(process $first)"* ]]
  # The first run was left alone: it finishes and confirms.
  touch "$dir/go"
  status=0
  wait "$first" || status=$?
  cat "$dir/first.out"
  [ "$status" -eq 0 ]
  [ "$(wc -l <"$dir/runs")" -eq 1 ]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* ]]
}

@test "kill -TERM or -INT mid-install stops the install command's whole process group, then releases" {
  dir=$BATS_TEST_TMPDIR
  for signal in TERM INT; do
    rm -f "$dir/child" "$dir/grandchild"
    code="$(issue_code)"
    # Job control, so that the background script does not ignore INT (bash makes its background jobs ignore it).
    set -m
    SLOWDNS_INSTALL_CODE="$code" sh "$ACTIVATE_SH" run -- sh -c 'sleep 120 & echo "$!" >"$0/grandchild"; echo "$$" >"$0/child"; wait' "$dir" >"$dir/out" 2>&1 &
    pid=$!
    set +m
    wait_for_file "$dir/child"
    wait_for_file "$dir/grandchild"
    kill -"$signal" "$pid"
    status=0
    wait "$pid" || status=$?
    cat "$dir/out"
    if [ "$signal" = TERM ]; then [ "$status" -eq 143 ]; else [ "$status" -eq 130 ]; fi
    gone "$(cat "$dir/child")"
    gone "$(cat "$dir/grandchild")"
    grep -q 'the install code can be used again' "$dir/out"
    [ "$(precheck_status "$code")" = 200 ]
  done
}

@test "after a kill -9 of the script its install command runs on; the resume stops it (its process group) before running its own, never two at once" {
  dir=$BATS_TEST_TMPDIR
  SLOWDNS_INSTALL_CODE="$(issue_code)" sh "$ACTIVATE_SH" run -- sh -c 'sleep 120 & echo "$!" >"$0/orphan"; wait' "$dir" >/dev/null 2>&1 &
  pid=$!
  wait_for_file "$dir/orphan"
  # The script records the command's process group just after starting it: kill it once that is on record
  # (a kill -9 in that instant leaves an orphan no resume can find, as its README says).
  for _ in $(seq 1 300); do [ -n "$(state_value install_pgid)" ] && break; sleep 0.1; done
  [ -n "$(state_value install_pgid)" ]
  kill -KILL "$pid"
  wait "$pid" || true
  orphan=$(cat "$dir/orphan")
  kill -0 "$orphan" # the install command outlives the script
  [ "$(state_value stage)" = activated ]
  # The resume's install command fails (exit 40) if the orphan still runs beside it.
  run sh "$ACTIVATE_SH" run -- sh -c '! kill -0 "$0" 2>/dev/null' "$orphan"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"taking over the lock of process $pid, which has ended"* ]]
  [[ "$output" == *"still running (process group "*"): stopping it"* ]]
  [[ "$output" == *"resuming activation"* && "$output" == *"install confirmed"* ]]
  gone "$orphan"
}

@test "a resume whose earlier run registered the server keeps that registration and its agent token (no second register, 409)" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)" SLOWDNS_AGENT_TOKEN_FILE="$BATS_TEST_TMPDIR/agent-token"
  sh "$ACTIVATE_SH" precheck
  sh "$ACTIVATE_SH" activate
  sh "$ACTIVATE_SH" register
  token_before="$(cat "$SLOWDNS_AGENT_TOKEN_FILE")"
  unset SLOWDNS_INSTALL_CODE
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"resuming activation"* && "$output" == *"already registered"* && "$output" == *"install confirmed"* ]]
  [ "$(cat "$SLOWDNS_AGENT_TOKEN_FILE")" = "$token_before" ]
}

@test "the receipt: kept beside the state file at confirm, printed by 'receipt', verifying against the service's JWKS; read back when the file is lost" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" receipt
  [ "$status" -eq 2 ] # no activation yet
  run sh "$ACTIVATE_SH" run -- true
  [ "$status" -eq 0 ]
  state_file=$SLOWDNS_STATE_FILE
  [ -s "$state_file.receipt" ]
  [ "$(stat -c %a "$state_file.receipt")" = 600 ]
  run sh "$ACTIVATE_SH" receipt
  [ "$status" -eq 0 ]
  [[ "$output" =~ ^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$ ]]
  kept=$output
  run sh -c "printf '%s' '$kept' | node '$REPO_ROOT/bin/slowdns.js' receipt verify - --jwks '$SERVICE_URL/.well-known/jwks.json'"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"\"sub\": \"$(sed -n 's/^activation_id=//p' "$state_file")\""* ]]
  [[ "$output" == *'"hostname": "vpn1.example.net"'* ]]
  rm "$state_file.receipt"
  SLOWDNS_NO_JQ=1 run sh "$ACTIVATE_SH" receipt
  [ "$status" -eq 0 ]
  [ "$output" = "$kept" ]
  [ "$(cat "$state_file.receipt")" = "$kept" ]
}

@test "the receipt: an unconfirmed install has none (exit 2), and a new activation drops the previous install's" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- true
  [ "$status" -eq 0 ]
  state_file=$SLOWDNS_STATE_FILE
  rm "$state_file"
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" precheck
  run sh "$ACTIVATE_SH" activate
  [ "$status" -eq 0 ]
  [ ! -e "$state_file.receipt" ]
  run sh "$ACTIVATE_SH" receipt
  [ "$status" -eq 2 ]
  [[ "$output" == *"no receipt: the install in $state_file is activated, not confirmed"* ]]
}

@test "run waits for the person's approval, saying so once with the code's hint, and installs once approved" {
  export SLOWDNS_INSTALL_CODE="$(issue_code_waiting)"
  sh "$ACTIVATE_SH" run -- touch "$BATS_TEST_TMPDIR/installed" >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  wait_for_line 'Waiting for the person who got code' "$BATS_TEST_TMPDIR/out"
  decide approve
  result=0
  wait "$pid" || result=$?
  cat "$BATS_TEST_TMPDIR/out"
  [ "$result" -eq 0 ]
  [ -f "$BATS_TEST_TMPDIR/installed" ]
  [ "$(grep -c "Waiting for the person who got code SDNS-SD-…${SLOWDNS_INSTALL_CODE##*-} to approve this machine on the SlowDNS page ($SERVICE_URL/slowdns)" "$BATS_TEST_TMPDIR/out")" -eq 1 ]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* ]]
}

@test "denied on the page: run exits 16 (approval_denied), nothing installed, and the code is revoked" {
  export SLOWDNS_INSTALL_CODE="$(issue_code_waiting)"
  sh "$ACTIVATE_SH" run -- touch "$BATS_TEST_TMPDIR/installed" >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  wait_for_line 'Waiting for the person who got code' "$BATS_TEST_TMPDIR/out"
  decide deny
  result=0
  wait "$pid" || result=$?
  cat "$BATS_TEST_TMPDIR/out"
  [ "$result" -eq 16 ]
  [ ! -f "$BATS_TEST_TMPDIR/installed" ]
  grep -q '(approval_denied)' "$BATS_TEST_TMPDIR/out"
  [ "$(precheck_status "$SLOWDNS_INSTALL_CODE")" = 403 ]
}

@test "a fleet code with approval: the waiting installer says an operator decides, with the console's address and its precheck" {
  export SLOWDNS_INSTALL_CODE="$(fleet_code '{"uses":2,"require_approval":true}')"
  sh "$ACTIVATE_SH" run -- touch "$BATS_TEST_TMPDIR/installed" >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  wait_for_line 'Waiting for an operator to approve this machine' "$BATS_TEST_TMPDIR/out"
  precheck=$(state_value precheck_id)
  kill "$pid"
  wait "$pid" || true
  cat "$BATS_TEST_TMPDIR/out"
  [[ "$precheck" == pc_* ]]
  grep -qF "Waiting for an operator to approve this machine (code SDNS-SD-…${SLOWDNS_INSTALL_CODE##*-}, precheck $precheck): in the console at $SERVICE_URL/admin, or with: slowdns codes approve" "$BATS_TEST_TMPDIR/out"
  ! grep -q 'SlowDNS page' "$BATS_TEST_TMPDIR/out"
}

@test "a new code over a confirmed install: run refuses (exit 2) and names the state file, instead of exiting 0 without installing" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- true
  [ "$status" -eq 0 ]
  # The same code again: already confirmed, nothing to do (exit 0).
  run sh "$ACTIVATE_SH" run -- touch "$BATS_TEST_TMPDIR/installed"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"this install is already confirmed"* ]]
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- touch "$BATS_TEST_TMPDIR/installed"
  echo "$output"
  [ "$status" -eq 2 ]
  [ ! -f "$BATS_TEST_TMPDIR/installed" ]
  [[ "$output" == *"$SLOWDNS_STATE_FILE holds an install already confirmed with another code"* ]]
  [[ "$output" == *"set SLOWDNS_STATE_FILE to another file"* ]]
}

@test "cloud-init: --code-file with no terminal (setsid, stdin closed) enrols, confirms the observed address, and never prints the code" {
  code="$(issue_code)"
  mkdir -p "$BATS_TEST_TMPDIR/run/slowdns"
  printf '%s\n' "$code" >"$BATS_TEST_TMPDIR/run/slowdns/install-code"
  chmod 600 "$BATS_TEST_TMPDIR/run/slowdns/install-code"
  export SLOWDNS_PUBLIC_IP=observed
  run setsid -w sh "$ACTIVATE_SH" --code-file "$BATS_TEST_TMPDIR/run/slowdns/install-code" run -- touch "$BATS_TEST_TMPDIR/installed" </dev/null
  echo "$output"
  [ "$status" -eq 0 ]
  [ -f "$BATS_TEST_TMPDIR/installed" ]
  [[ "$output" != *"$code"* ]]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* && "$output" == *"public_ip=$client_ip"* ]]
}

@test "--code-file also stands between the command and --, and wins over SLOWDNS_INSTALL_CODE" {
  printf '%s\n' "$(issue_code)" >"$BATS_TEST_TMPDIR/code"
  chmod 600 "$BATS_TEST_TMPDIR/code"
  SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 run setsid -w sh "$ACTIVATE_SH" precheck --code-file="$BATS_TEST_TMPDIR/code" </dev/null
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"is valid for this machine"* ]]
}

@test "exit 2: a code file others may read or write, or that is missing, is refused without printing the code" {
  code="$(issue_code)"
  printf '%s\n' "$code" >"$BATS_TEST_TMPDIR/code"
  for mode in 640 604 620; do
    chmod "$mode" "$BATS_TEST_TMPDIR/code"
    run setsid -w sh "$ACTIVATE_SH" --code-file "$BATS_TEST_TMPDIR/code" precheck </dev/null
    [ "$status" -eq 2 ]
    [[ "$output" == *"may be read or written by others"*"chmod 600"* && "$output" != *"$code"* ]]
  done
  run setsid -w sh "$ACTIVATE_SH" --code-file "$BATS_TEST_TMPDIR/missing" precheck </dev/null
  [ "$status" -eq 2 ]
  [[ "$output" == *"cannot read the install code file"* ]]
  run sh "$ACTIVATE_SH" precheck --code-file
  [ "$status" -eq 2 ]
  [[ "$output" == *"--code-file needs a path"* ]]
  [ "$(precheck_status "$code")" = 200 ] # nothing was sent
}

@test "exit 2 at once, asking nothing, when an answer is missing and there is no terminal or --non-interactive is given" {
  printf '%s\n' "$(issue_code)" >"$BATS_TEST_TMPDIR/code"
  chmod 600 "$BATS_TEST_TMPDIR/code"
  unset SLOWDNS_HOSTNAME
  run setsid -w sh "$ACTIVATE_SH" --code-file "$BATS_TEST_TMPDIR/code" run -- true </dev/null
  echo "$output"
  [ "$status" -eq 2 ]
  [[ "$output" == *"set SLOWDNS_HOSTNAME and SLOWDNS_PUBLIC_IP, or run on a terminal"* ]]
  command -v script >/dev/null || skip 'no script(1) for a terminal'
  # On a terminal, --non-interactive still asks nothing: it ends instead of waiting for a typed code.
  run timeout 20 script -qec "sh $ACTIVATE_SH --non-interactive precheck" /dev/null
  echo "$output"
  [ "$status" -eq 2 ]
  [[ "$output" == *"no install code"* && "$output" != *"Install code (from"* ]]
}

@test "one fleet code in one code file enrols two machines without a terminal; the third exits 12 (install_code_exhausted)" {
  code="$(fleet_code '{"uses":2,"allowed_cidrs":["198.51.0.0/16"],"tags":{"env":"prod"}}')"
  printf '%s\n' "$code" >"$BATS_TEST_TMPDIR/code"
  chmod 600 "$BATS_TEST_TMPDIR/code"
  export SLOWDNS_PUBLIC_IP=observed
  for machine in 1 2 3; do
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$SLOWDNS_MACHINE_ID_FILE"
    export SLOWDNS_STATE_FILE="$BATS_TEST_TMPDIR/state-$machine/activation.state"
    run setsid -w sh "$ACTIVATE_SH" --code-file "$BATS_TEST_TMPDIR/code" run -- true </dev/null
    echo "$output"
    if [ "$machine" -lt 3 ]; then [ "$status" -eq 0 ]; else [ "$status" -eq 12 ]; fi
    [[ "$output" != *"$code"* ]]
  done
  [[ "$output" == *"(install_code_exhausted)"* ]]
}

@test "exit 17: a machine outside the code's networks, or with a host name the code does not allow" {
  code="$(fleet_code '{"uses":3,"allowed_cidrs":["192.0.2.0/24"]}')"
  SLOWDNS_INSTALL_CODE="$code" run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 17 ]
  [[ "$output" == *"(install_code_address_not_allowed)"* ]]
  code="$(fleet_code '{"uses":3,"hostname_pattern":"*.prod.example.com","require_approval":false,"allowed_cidrs":["198.51.0.0/16"]}')"
  SLOWDNS_INSTALL_CODE="$code" run sh "$ACTIVATE_SH" run -- true
  [ "$status" -eq 17 ]
  [[ "$output" == *"(install_code_hostname_not_allowed)"* ]]
}

# activation_record <activation id>: the activation as an operator sees it (the admin API's show).
activation_record() {
  printf 'header = "Authorization: Bearer %s"\n' "$BATS_ADMIN_TOKEN" >"$BATS_TEST_TMPDIR/admin.curlrc"
  curl -fsS -K "$BATS_TEST_TMPDIR/admin.curlrc" "$SERVICE_URL/api/v2/admin/activations/$1"
}

@test "run proves the machine's SSH host key with ssh-keygen -Y sign: the activation is ssh_key_proven" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"SSH host key proven"* ]]
  [[ "$output" != *"going on without proving"* ]]
  [[ "$(activation_record "$(state_value activation_id)")" == *'"ssh_key_proven":true'* ]]
}

@test "--host-key names the key that proves (its .pub, or derived from the key when there is none)" {
  unset SLOWDNS_SSH_HOST_KEY
  ssh-keygen -q -t ecdsa -b 384 -N '' -f "$BATS_TEST_TMPDIR/other_host_key" </dev/null >/dev/null
  rm "$BATS_TEST_TMPDIR/other_host_key.pub"
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" --host-key "$BATS_TEST_TMPDIR/other_host_key" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"SSH host key proven"* ]]
  record=$(activation_record "$(state_value activation_id)")
  [[ "$record" == *"$(ssh-keygen -E sha256 -lf "$BATS_TEST_TMPDIR/other_host_key" | awk '{print $2}')"* ]]
}

@test "without a readable host private key the install goes on unproven and says why" {
  rm "$BATS_TEST_TMPDIR/ssh_host_ed25519_key"
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"going on without proving this machine’s SSH host key: no SSH host private key"* ]]
  [[ "$(activation_record "$(state_value activation_id)")" == *'"ssh_key_proven":false'* ]]
}

@test "a proof the service does not take (another spelling of its address) costs no install: it goes on unproven" {
  export SLOWDNS_URL="${SERVICE_URL/127.0.0.1/localhost}"
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"did not accept this machine’s SSH host-key proof"* ]]
}

@test "exit 18: a fleet code that requires machine proof, on a machine that cannot prove its key; with the key it installs" {
  code="$(fleet_code '{"uses":3,"require_machine_proof":true,"allowed_cidrs":["198.51.0.0/16"]}')"
  mv "$BATS_TEST_TMPDIR/ssh_host_ed25519_key" "$BATS_TEST_TMPDIR/kept_key"
  SLOWDNS_INSTALL_CODE="$code" run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 18 ]
  [[ "$output" == *"requires machines to prove their SSH host key"* ]]
  mv "$BATS_TEST_TMPDIR/kept_key" "$BATS_TEST_TMPDIR/ssh_host_ed25519_key"
  rm -f "$SLOWDNS_STATE_FILE"
  SLOWDNS_INSTALL_CODE="$code" run sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"SSH host key proven"* ]]
}

# --- the person's language (DESIGN §30) ----------------------------------------------------------

# no_code_message <locale>: what a precheck without an install code and without a terminal says, under LANG=<locale>.
no_code_message() { env LANG="$1" setsid -w sh "$ACTIVATE_SH" precheck </dev/null 2>&1; }

@test "messages follow LANG: Spanish, Russian, Chinese, Indonesian and Turkish, with the same exit code" {
  for pair in 'es_ES.UTF-8:falta el código de instalación' 'ru_RU.UTF-8:нет кода установки' \
    'zh_CN.UTF-8:没有安装码' 'id_ID.UTF-8:tidak ada kode instalasi' 'tr_TR.UTF-8:kurulum kodu yok'; do
    run env LANG="${pair%%:*}" setsid -w sh "$ACTIVATE_SH" precheck </dev/null
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == "activate.sh: ${pair#*:}"* ]]
  done
}

@test "LC_ALL wins over LC_MESSAGES, which wins over LANG; an unknown language, zh_TW or a codeset other than UTF-8 is English" {
  run env LANG=es_ES.UTF-8 LC_MESSAGES=ru_RU.UTF-8 setsid -w sh "$ACTIVATE_SH" precheck </dev/null
  [[ "$output" == *"нет кода установки"* ]]
  run env LANG=es_ES.UTF-8 LC_MESSAGES=ru_RU.UTF-8 LC_ALL=tr_TR.UTF-8 setsid -w sh "$ACTIVATE_SH" precheck </dev/null
  [[ "$output" == *"kurulum kodu yok"* ]]
  run env LANG=es_ES.UTF-8 LC_ALL=C setsid -w sh "$ACTIVATE_SH" precheck </dev/null
  [[ "$output" == *"no install code"* ]]
  for locale in de_DE.UTF-8 zh_TW.UTF-8 ru_RU.KOI8-R xx; do
    [[ "$(no_code_message "$locale")" == "activate.sh: no install code: give --code-file PATH"* ]]
  done
}

@test "Persian and Arabic: in their language without a terminal (a log), in English on a terminal, questions included" {
  [[ "$(no_code_message fa_IR.UTF-8)" == *"کد نصب داده نشده است"* ]]
  [[ "$(no_code_message ar_EG.UTF-8)" == *"لا يوجد رمز تثبيت"* ]]
  command -v script >/dev/null || skip 'no script(1) for a terminal'
  for locale in fa_IR.UTF-8 ar_EG.UTF-8; do
    run env LANG="$locale" timeout 20 script -qec "sh $ACTIVATE_SH --non-interactive precheck" /dev/null
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"activate.sh: no install code"* ]]
  done
  # Its output piped into a file is still watched on the terminal: English, and the question too.
  code="$(issue_code)"
  run sh -c "printf '%s\n' '$code' | env LANG=fa_IR.UTF-8 script -qec 'sh $ACTIVATE_SH precheck 2>$BATS_TEST_TMPDIR/log' /dev/null"
  echo "$output"
  [[ "$output" == *"Install code (from the SlowDNS page)"* ]]
  grep -q 'is valid for this machine' "$BATS_TEST_TMPDIR/log"
}

@test "a whole install in Turkish without a terminal, and in Chinese: exit 0 and confirmed, each step said in the language" {
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run env LANG=tr_TR.UTF-8 setsid -w sh "$ACTIVATE_SH" run -- true </dev/null
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"kurulum kodu bu makine için geçerli"* && "$output" == *"etkinleştirmesi yapıldı, SSH sunucu anahtarı kanıtlandı"* ]]
  [[ "$output" == *"kurulum onaylandı ($(state_value activation_id))"* ]]
  [[ "$output" != *"install confirmed"* ]]
  rm -f "$SLOWDNS_STATE_FILE"
  export SLOWDNS_INSTALL_CODE="$(issue_code)"
  run env LANG=zh_CN.UTF-8 sh "$ACTIVATE_SH" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"安装已确认（$(state_value activation_id)）"* ]]
  run sh "$ACTIVATE_SH" status
  [[ "$output" == *"status=confirmed"* ]]
}

@test "a failed install in Russian: exit 40 unchanged, the release said in Russian, the service's own message and code in English" {
  code="$(issue_code)"
  SLOWDNS_INSTALL_CODE="$code" run env LANG=ru_RU.UTF-8 sh "$ACTIVATE_SH" run -- sh -c 'exit 3'
  echo "$output"
  [ "$status" -eq 40 ]
  [[ "$output" == *"команда установки завершилась с ошибкой (код выхода 3)"* && "$output" == *"код установки можно использовать снова"* ]]
  SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 run env LANG=ru_RU.UTF-8 sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 10 ]
  [[ "$output" == *"(install_code_not_found)"* ]]
}

@test "on a terminal in Spanish the questions are Spanish and the answer sí activates" {
  command -v script >/dev/null || skip 'no script(1) for a terminal'
  unset SLOWDNS_HOSTNAME
  code="$(issue_code)"
  run sh -c "printf '%s\nvpn1.example.net\n\nsí\n' '$code' | env LANG=es_ES.UTF-8 timeout 60 script -qec 'sh $ACTIVATE_SH run -- true' /dev/null"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"Código de instalación (de la página de SlowDNS):"* && "$output" == *"¿Activar vpn1.example.net ($client_ip)? [s/N]"* ]]
  [[ "$output" == *"instalación confirmada"* ]]
}
