#!/bin/sh
# SlowDNS activation client: precheck, activate, confirm or release an install code around your
# installer. POSIX sh; needs only curl (jq is used when present). See README.md next to this file.
#
#   SLOWDNS_URL=https://activation.example.net SLOWDNS_INSTALL_CODE=SDNS-SD-… sh activate.sh run -- ./install.sh
#   SLOWDNS_URL=… sh activate.sh --code-file /run/slowdns/install-code run -- ./install.sh   (cloud-init, no terminal)
#
# Exit codes (stable): 0 done; 2 usage (also: an answer was needed and there is no terminal to ask); 10 code not
# found; 11 code expired; 12 code in use, revoked or with no use left; 13 machine mismatch or a clone's identity;
# 14 token invalid, expired or used (or a release without proof); 15 activation already released or confirmed;
# 16 this machine was denied; 17 this machine's address or host name is not one the code allows;
# 18 this machine could not prove its SSH host key where proof is required;
# 20 rate limited; 21 installer outdated; 30 network; 31 server error; 40 install command failed.
set -eu
umask 077

ACTIVATE_SH_VERSION=2026.11.24.1

SLOWDNS_URL=${SLOWDNS_URL:-}
SLOWDNS_STATE_FILE=${SLOWDNS_STATE_FILE:-${HOME:-/root}/.slowdns-activation.state}
SLOWDNS_INSTALLER_VERSION=${SLOWDNS_INSTALLER_VERSION:-$ACTIVATE_SH_VERSION}
SLOWDNS_REQUESTED_REF=${SLOWDNS_REQUESTED_REF:-main}
SLOWDNS_MACHINE_ID_FILE=${SLOWDNS_MACHINE_ID_FILE:-/etc/machine-id}
SLOWDNS_MAX_RETRIES=${SLOWDNS_MAX_RETRIES:-4}
SLOWDNS_TIMEOUT_SECONDS=${SLOWDNS_TIMEOUT_SECONDS:-30}

work_dir=''
child_pid=''
CODE_FILE=''
NON_INTERACTIVE=${SLOWDNS_NON_INTERACTIVE:-}
LOCK_DIR=''
LOCK_HELD=''
HOST_KEY_OPTION=''
CLONED_IMAGE_HINT='If this machine was cloned from an image, its /etc/machine-id and SSH host keys are copies shared with its siblings: give it its own (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) and run again.'

say() { printf '%s\n' "activate.sh: $*" >&2; }

# The one place error codes become exit codes. Stable once released: installers branch on them.
exit_code_for() {
  case "$1" in
    validation_failed) echo 2 ;;
    install_code_not_found) echo 10 ;;
    install_code_expired) echo 11 ;;
    install_code_unavailable | install_code_revoked | install_code_exhausted) echo 12 ;;
    machine_mismatch | machine_duplicate) echo 13 ;;
    precheck_token_invalid | install_token_invalid | install_token_used | activation_not_found | release_not_allowed) echo 14 ;;
    activation_released | activation_confirmed) echo 15 ;;
    approval_denied) echo 16 ;;
    install_code_address_not_allowed | install_code_hostname_not_allowed) echo 17 ;;
    machine_proof_invalid | machine_proof_required) echo 18 ;;
    rate_limit_exceeded) echo 20 ;;
    installer_outdated) echo 21 ;;
    network) echo 30 ;;
    *) echo 31 ;;
  esac
}

die() { # die <error code> <message>
  say "$2"
  exit "$(exit_code_for "$1")"
}

usage() {
  cat >&2 <<'EOF'
usage: activate.sh [--code-file PATH] [--host-key FILE] [--non-interactive] <command>
  precheck            check the install code for this machine (saves a precheck token in the state file)
  activate            activate it after confirming hostname and public IP (saves the activation)
  confirm             confirm the install: consumes the install token for good
  release             release the activation; the install code is restored if it still can be
  status              where the install in the state file stands
  receipt             print the signed receipt of the confirmed install (kept beside the state file)
  register            register this server (writes the agent token to SLOWDNS_AGENT_TOKEN_FILE)
  run -- <command...> the whole flow around your install command; releases on failure or signal,
                      resumes an unfinished install found in the state file
The install code comes from the file --code-file names (mode 600, yours or root's), SLOWDNS_INSTALL_CODE,
the file SLOWDNS_INSTALL_CODE_FILE, or the terminal; never from the command line itself.
--host-key FILE: the SSH host private key that proves this machine at activate (ssh-keygen -Y sign); by default
the first of /etc/ssh/ssh_host_{ed25519,ecdsa,rsa}_key this user can read. Without one it goes on unproven.
--non-interactive (or SLOWDNS_NON_INTERACTIVE=1): never ask on a terminal; what is missing exits 2. Without
a terminal (cloud-init, setsid, cron) nothing is asked either. Other settings: see README.md.
EOF
  exit 2
}

# --- values -------------------------------------------------------------------------------------

have_jq() { [ "${SLOWDNS_NO_JQ:-}" != 1 ] && command -v jq >/dev/null 2>&1; }

# json_get <key> <file>: the first value of <key> anywhere in the JSON answer, strings unquoted.
# Without jq, sed is enough: the contract guarantees codes, ids and tokens are [A-Za-z0-9._-].
# With jq, an answer is read once (jq's start-up is most of what a call costs, and a step asks several
# keys of one answer): <file>.keys lists every key of every object in the order jq's `..` meets them,
# `key<TAB>=value` (the value as `tostring` gives it, empty for null) or `key<TAB>*` for a value of more
# than one line, which is then asked of jq itself. api() removes it with each new answer.
json_get() {
  if have_jq; then
    [ -f "$2.keys" ] || jq -r '.. | objects | to_entries[] | select(.key | test("^[A-Za-z0-9_]+$"))
      | "\(.key)\t\(if .value == null then "=" elif (.value | tostring | contains("\n")) then "*" else "=\(.value | tostring)" end)"' \
      <"$2" >"$2.keys" 2>/dev/null || true
    json_value=$(sed -n "/^$1	/{s///p;q;}" "$2.keys")
    case "$json_value" in
      =*) printf '%s\n' "${json_value#=}" ;;
      '*') jq -r --arg k "$1" 'first(.. | objects | select(has($k)) | .[$k]) | if . == null then empty else tostring end' <"$2" 2>/dev/null || true ;;
    esac
  else
    sed -n -e "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" -e "s/.*\"$1\":\\([a-z0-9][a-z0-9]*\\).*/\\1/p" "$2" | grep -v '^null$' | head -n 1
  fi
}

# In a subshell: a failed redirection of a special built-in such as `:` would end the script itself.
have_terminal() { (true </dev/tty) 2>/dev/null; }

shell_safe() { # the contract's promise, checked rather than trusted
  case "$1" in '' | *[!A-Za-z0-9._-]*) return 1 ;; *) return 0 ;; esac
}

state_get() {
  [ -f "$SLOWDNS_STATE_FILE" ] || return 0
  sed -n "s/^$1=//p" "$SLOWDNS_STATE_FILE" | head -n 1
}

state_set() { # state_set <key> <value>: the file holds key=value lines of shell-safe values only
  shell_safe "$2" || die internal_error "refusing to store an unexpected value for $1"
  mkdir -p "$(dirname "$SLOWDNS_STATE_FILE")"
  if [ -f "$SLOWDNS_STATE_FILE" ]; then
    grep -v "^$1=" "$SLOWDNS_STATE_FILE" >"$work_dir/state" || true
  else
    : >"$work_dir/state"
  fi
  printf '%s=%s\n' "$1" "$2" >>"$work_dir/state"
  mv "$work_dir/state" "$SLOWDNS_STATE_FILE"
}

# The receipt of a confirmed install, beside the state file: it outlives nothing but is kept with it.
receipt_file() { printf '%s' "$SLOWDNS_STATE_FILE.receipt"; }

save_receipt() { # save_receipt <answer file>: the receipt of a confirm or status answer, when it has one
  receipt=$(json_get receipt "$1")
  [ -n "$receipt" ] || return 0
  shell_safe "$receipt" || die internal_error 'the answer has a receipt that is not a compact JWS'
  mkdir -p "$(dirname "$SLOWDNS_STATE_FILE")"
  printf '%s\n' "$receipt" >"$work_dir/receipt"
  mv "$work_dir/receipt" "$(receipt_file)"
}

state_unset() {
  [ -f "$SLOWDNS_STATE_FILE" ] || return 0
  grep -v "^$1=" "$SLOWDNS_STATE_FILE" >"$work_dir/state" || true
  mv "$work_dir/state" "$SLOWDNS_STATE_FILE"
}

# --- one run at a time per state file ------------------------------------------------------------

# A lock directory beside the state file (mkdir is atomic) holding its owner's pid, for the whole run of
# every command that writes the state file. A lock whose owner has ended (kill -9, a power cut) is stale:
# it is taken over.
take_lock() {
  LOCK_DIR=$SLOWDNS_STATE_FILE.lock
  mkdir -p "$(dirname "$SLOWDNS_STATE_FILE")"
  tries=0
  until mkdir "$LOCK_DIR" 2>/dev/null; do
    [ -d "$LOCK_DIR" ] || die validation_failed "cannot create the lock $LOCK_DIR"
    owner=$(cat "$LOCK_DIR/pid" 2>/dev/null || true)
    if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
      die validation_failed "another activate.sh (process $owner) is using $SLOWDNS_STATE_FILE: wait for it to end (if no such process runs, remove $LOCK_DIR)"
    fi
    tries=$((tries + 1))
    [ "$tries" -le 3 ] || die validation_failed "cannot take the lock $LOCK_DIR"
    # No pid yet: its owner may be between its mkdir and writing it.
    if [ -z "$owner" ] && [ "$tries" -lt 3 ]; then sleep 1 && continue; fi
    # Renamed away first (of two runs doing so, one wins), then checked to be the lock that was seen stale.
    if mv "$LOCK_DIR" "$LOCK_DIR.$$" 2>/dev/null; then
      if [ "$(cat "$LOCK_DIR.$$/pid" 2>/dev/null || true)" = "$owner" ]; then
        rm -rf "$LOCK_DIR.$$"
        say "taking over the lock of process ${owner:-unknown}, which has ended"
      else
        mv "$LOCK_DIR.$$" "$LOCK_DIR" 2>/dev/null || true
      fi
    fi
  done
  printf '%s\n' "$$" >"$LOCK_DIR/pid" 2>/dev/null || die validation_failed "another activate.sh took the lock $LOCK_DIR"
  LOCK_HELD=1
}

drop_lock() {
  if [ -n "$LOCK_HELD" ]; then rm -rf "$LOCK_DIR"; fi
  LOCK_HELD=''
}

# --- the install command's process group ----------------------------------------------------------

# The install command runs in a session, so a process group, of its own (setsid: the group's id is the
# command's pid), recorded in the state file as install_pgid while it runs: stopping it stops everything
# it started, and a rerun after a kill -9 of this script finds it.
group_running() { kill -0 -"$1" 2>/dev/null; }

# stop_install_group <pgid> [<pid to reap>]: TERM to the whole group; KILL after 10 s to what is left.
stop_install_group() {
  # The second form: a command stopped before setsid made its group is the one process.
  kill -TERM -"$1" 2>/dev/null || kill -TERM "$1" 2>/dev/null || true
  (sleep 10 && kill -KILL -"$1" 2>/dev/null) </dev/null >/dev/null 2>&1 &
  killer=$!
  if [ -n "${2:-}" ]; then wait "$2" 2>/dev/null || true; fi
  while group_running "$1" && kill -0 "$killer" 2>/dev/null; do sleep 1; done
  kill "$killer" 2>/dev/null || true
}

# install_group_is_ours <pgid> <activation id>: a process of that group carries this activation in its
# environment (SLOWDNS_ACTIVATION_ID, read from /proc): the recorded number may since belong to others.
install_group_is_ours() {
  for pid in $(ps -eo pid=,pgid= | awk -v group="$1" '$2 == group { print $1 }'); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLOWDNS_ACTIVATION_ID=$2"; then return 0; fi
  done
  return 1
}

# The install command of a run killed with -9 runs on as an orphan: stopped before anything else, so that
# a resume never runs a second copy beside it (a resume runs the command again; it cannot learn the
# orphan's outcome).
stop_orphaned_install() {
  pgid=$(state_get install_pgid)
  [ -n "$pgid" ] || return 0
  if group_running "$pgid" && install_group_is_ours "$pgid" "$(state_get activation_id)"; then
    say "the install command of an earlier run is still running (process group $pgid): stopping it"
    stop_install_group "$pgid"
  fi
  state_unset install_pgid
}

read_install_code() {
  code=${SLOWDNS_INSTALL_CODE:-}
  if [ -n "$CODE_FILE" ]; then
    read_code_file "$CODE_FILE" --code-file
    code=$CODE_FROM_FILE
  elif [ -z "$code" ] && [ -n "${SLOWDNS_INSTALL_CODE_FILE:-}" ]; then
    read_code_file "$SLOWDNS_INSTALL_CODE_FILE" SLOWDNS_INSTALL_CODE_FILE
    code=$CODE_FROM_FILE
  fi
  if [ -z "$code" ]; then
    # stdin may be the pipe this script came from (curl … | sh): ask the terminal itself.
    may_ask || die validation_failed 'no install code: give --code-file PATH or set SLOWDNS_INSTALL_CODE, or run on a terminal'
    printf 'Install code (from the SlowDNS page): ' >/dev/tty
    IFS= read -r code </dev/tty || true
  fi
  # The service forgives case, spaces and look-alikes; keep only what a code can hold, so it embeds in JSON as is.
  code=$(printf '%s' "$code" | tr -cd 'A-Za-z0-9-')
  [ -n "$code" ] || die validation_failed 'the install code is empty'
  INSTALL_CODE=$code
}

read_machine() {
  [ -r "$SLOWDNS_MACHINE_ID_FILE" ] || die validation_failed "cannot read $SLOWDNS_MACHINE_ID_FILE (set SLOWDNS_MACHINE_ID_FILE)"
  MACHINE_ID=$(tr -d ' \t\r\n' <"$SLOWDNS_MACHINE_ID_FILE")
  case "$MACHINE_ID" in
    *[!0-9a-f]* | '') die validation_failed "$SLOWDNS_MACHINE_ID_FILE does not hold a machine id (32 lower-case hex characters)" ;;
  esac
  key=${SLOWDNS_SSH_HOST_KEY:-}
  if [ -n "$HOST_KEY_OPTION" ]; then
    key=$(host_key_public "$HOST_KEY_OPTION")
  elif [ -z "$key" ]; then
    for candidate in /etc/ssh/ssh_host_ed25519_key.pub /etc/ssh/ssh_host_ecdsa_key.pub /etc/ssh/ssh_host_rsa_key.pub; do
      if [ -r "$candidate" ]; then key=$candidate && break; fi
    done
  fi
  if [ -n "${SLOWDNS_SSH_FINGERPRINT:-}" ]; then
    SSH_FINGERPRINT=$SLOWDNS_SSH_FINGERPRINT
  else
    [ -n "$key" ] || die validation_failed 'no SSH host key found in /etc/ssh (set SLOWDNS_SSH_HOST_KEY or SLOWDNS_SSH_FINGERPRINT)'
    command -v ssh-keygen >/dev/null 2>&1 || die validation_failed 'ssh-keygen is missing (set SLOWDNS_SSH_FINGERPRINT)'
    SSH_FINGERPRINT=$(ssh-keygen -E sha256 -lf "$key" | awk '{print $2}')
  fi
  choose_signing_key "$key"
  case "$SSH_FINGERPRINT" in
    SHA256:*) ;;
    *) die validation_failed 'the SSH fingerprint is not SHA256:… (ssh-keygen -E sha256 -lf <host key>)' ;;
  esac
  case "$SSH_FINGERPRINT" in
    *[!A-Za-z0-9:+/]*) die validation_failed 'the SSH fingerprint has unexpected characters' ;;
  esac
}

# --- proving the machine: a signature by its SSH host key (DESIGN §24) ----------------------------

# host_key_public <private key file>: its public key file, FILE.pub, or derived from the key by ssh-keygen -y.
host_key_public() {
  if [ -r "$1.pub" ]; then printf '%s' "$1.pub" && return 0; fi
  [ -r "$1" ] || die validation_failed "cannot read the host key $1 (--host-key)"
  ssh-keygen -y -f "$1" >"$work_dir/host_key.pub" 2>/dev/null || die validation_failed "$1 is not an SSH private key (--host-key)"
  printf '%s' "$work_dir/host_key.pub"
}

# choose_signing_key <public key file>: SIGNING_KEY is the private key beside it when this user can read it and
# its fingerprint is the one sent; otherwise SIGNING_KEY is empty and NO_PROOF_REASON says why.
choose_signing_key() {
  SIGNING_KEY='' SIGNING_KEY_PUB=$1 NO_PROOF_REASON=''
  private=${HOST_KEY_OPTION:-${1%.pub}}
  if [ -z "$1" ] || [ ! -r "$private" ] || [ "$private" = "$1" ]; then
    NO_PROOF_REASON="no SSH host private key this user can read (run as root, or name one with --host-key)"
  elif ! command -v ssh-keygen >/dev/null 2>&1; then
    NO_PROOF_REASON='ssh-keygen is missing'
  elif [ "$(ssh-keygen -E sha256 -lf "$1" 2>/dev/null | awk '{print $2}')" != "$SSH_FINGERPRINT" ]; then
    NO_PROOF_REASON="the host key $private is not the one of the fingerprint sent ($SSH_FINGERPRINT)"
  else
    SIGNING_KEY=$private
  fi
}

# The service's origin as the URL standard writes it (scheme, host, port; the default port left out): what
# the proof names, so a service that relays another's challenge cannot pass the signature on.
service_origin() {
  rest=${SLOWDNS_URL#*://}
  scheme=$(printf '%s' "${SLOWDNS_URL%%://*}" | tr '[:upper:]' '[:lower:]')
  host=$(printf '%s' "${rest%%/*}" | tr '[:upper:]' '[:lower:]')
  host=${host##*@}
  case "$scheme:$host" in https:*:443) host=${host%:443} ;; http:*:80) host=${host%:80} ;; esac
  printf '%s://%s' "$scheme" "$host"
}

# prove_machine: PROOF_JSON is the two fields activate takes (,"ssh_host_key":…,"ssh_key_signature":…), signed
# with `ssh-keygen -Y sign` over the values this activate sends; empty when this machine cannot prove its key,
# said with the reason; where the service requires a proof, that is exit 18 instead.
prove_machine() {
  PROOF_JSON=''
  challenge=$(state_get proof_challenge)
  why=$NO_PROOF_REASON
  if [ -z "$challenge" ]; then why='the precheck gave no challenge (a service without machine proofs)'; fi
  if [ -z "$why" ]; then
    printf 'slowdns-activate/1\nservice=%s\nchallenge=%s\nmachine_id=%s\nhostname=%s\npublic_ip=%s\n' \
      "$(service_origin)" "$challenge" "$MACHINE_ID" "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED" >"$work_dir/proof"
    rm -f "$work_dir/proof.sig"
    if ssh-keygen -Y sign -n slowdns-activate -f "$SIGNING_KEY" "$work_dir/proof" >/dev/null 2>"$work_dir/proof.err"; then
      PROOF_JSON=$(printf ',"ssh_host_key":"%s","ssh_key_signature":"%s"' \
        "$(awk '{printf "%s %s", $1, $2; exit}' "$SIGNING_KEY_PUB")" "$(sed 's/$/\\n/' "$work_dir/proof.sig" | tr -d '\n')")
      return 0
    fi
    why="ssh-keygen cannot sign with $SIGNING_KEY (ssh-keygen -Y sign needs OpenSSH 8.1 or later): $(head -c 200 "$work_dir/proof.err")"
  fi
  if [ "$(state_get machine_proof)" = required ]; then
    die machine_proof_required "this service requires machines to prove their SSH host key, and this one cannot: $why"
  fi
  say "going on without proving this machine's SSH host key: $why"
}

# --- unattended runs (cloud-init, Ansible, a golden image) --------------------------------------

# parse_option <argument> <next argument>: the script's own options, before the command or between it and
# `--`. Sets OPTION_WIDTH to how many arguments it took (0: not an option of ours).
parse_option() {
  OPTION_WIDTH=1
  case "$1" in
    --code-file)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed '--code-file needs a path'; fi
      CODE_FILE=$2
      OPTION_WIDTH=2
      ;;
    --code-file=*)
      CODE_FILE=${1#--code-file=}
      [ -n "$CODE_FILE" ] || die validation_failed '--code-file needs a path'
      ;;
    --host-key)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed '--host-key needs the path of an SSH host private key'; fi
      HOST_KEY_OPTION=$2
      OPTION_WIDTH=2
      ;;
    --host-key=*)
      HOST_KEY_OPTION=${1#--host-key=}
      [ -n "$HOST_KEY_OPTION" ] || die validation_failed '--host-key needs the path of an SSH host private key'
      ;;
    --non-interactive) NON_INTERACTIVE=1 ;;
    *) OPTION_WIDTH=0 ;;
  esac
}

# read_code_file <path> <what names it>: sets CODE_FROM_FILE to the file's first line. The file must be a
# regular file of this user's (or root's) that no one else may read or write: a code others can read is a
# code anyone on this machine can enrol with, and one others can write may be swapped for theirs. The code
# itself is never printed.
read_code_file() {
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then die validation_failed "cannot read the install code file $1 ($2)"; fi
  # ls -lnL is POSIX (stat is not): "-rw-------  1 0 0 …", the permissions, then the owner's uid.
  # shellcheck disable=SC2012
  set -- "$1" "$2" "$(ls -lnL "$1" | awk '{print $1 " " $3}')"
  case "${3%% *}" in
    ????------*) ;;
    *) die validation_failed "the install code file $1 ($2) may be read or written by others (${3%% *}): chmod 600 it" ;;
  esac
  case "${3#* }" in
    0 | "$(id -u)") ;;
    *) die validation_failed "the install code file $1 ($2) belongs to another user (uid ${3#* }): it must be yours or root's" ;;
  esac
  CODE_FROM_FILE=$(head -n 1 "$1")
}

# Whether a question may be asked: never with --non-interactive; otherwise only with a terminal to ask on
# (/dev/tty) that this run's stdin or stderr is connected to. Under cloud-init, setsid, cron or a pipe to a
# log there is none, and what is missing exits 2 at once instead of waiting for an answer no one can give.
may_ask() {
  [ "$NON_INTERACTIVE" != 1 ] || return 1
  { [ -t 0 ] || [ -t 2 ]; } && have_terminal
}

# SLOWDNS_PUBLIC_IP=observed: the operator confirms in advance whatever address the service saw at the
# precheck of this same run (a fleet's user-data cannot name each machine's address).
observed_address() {
  [ -n "${OBSERVED_IP:-}" ] || die validation_failed 'SLOWDNS_PUBLIC_IP=observed needs the precheck in the same run (use run, or name the address)'
  printf '%s' "$OBSERVED_IP"
}

# --- HTTP ---------------------------------------------------------------------------------------

# pause <seconds>: the one wait between two asks of the service (a retry, the approval wait), at most
# SLOWDNS_MAX_WAIT_SECONDS when that is set (whole seconds, at least 1): tests set it so that they do not
# sit out a real Retry-After; unset, the service's pace is kept.
pause() {
  wait_for=$1
  case "${SLOWDNS_MAX_WAIT_SECONDS:-}" in
    '') ;;
    *[!0-9]* | 0) die validation_failed 'SLOWDNS_MAX_WAIT_SECONDS must be a whole number of seconds, at least 1' ;;
    *) [ "$wait_for" -le "$SLOWDNS_MAX_WAIT_SECONDS" ] || wait_for=$SLOWDNS_MAX_WAIT_SECONDS ;;
  esac
  sleep "$wait_for"
}

retry_wait_words() { # seconds → "3 minutes", for people
  if [ "$1" -ge 3600 ]; then echo "$(($1 / 3600)) hours $(($1 % 3600 / 60)) minutes"
  elif [ "$1" -ge 60 ]; then echo "$((($1 + 59) / 60)) minutes"
  else echo "$1 seconds"; fi
}

# request <json>: writes the body of the next POST to a file. Never a pipe into api: sh runs the parts of
# a pipeline in subshells, and api's results would be lost with them.
request() { printf '%s' "$1" >"$work_dir/request"; }

# api POST <path>: sends the body `request` wrote; sets STATUS, BODY (a file) and RETRY_AFTER. Secrets go
# in a file curl reads, never on its command line (the process list). Retried with backoff only after a
# network failure or a 503, honouring Retry-After; never after 429.
api() {
  [ -n "$SLOWDNS_URL" ] || die validation_failed 'set SLOWDNS_URL to the activation service, e.g. https://activation.example.net'
  BODY=$work_dir/body
  attempt=0
  while :; do
    rm -f "$BODY.keys"
    STATUS=$(curl -sS -X "$1" -o "$BODY" -D "$work_dir/headers" -w '%{http_code}' \
      --max-time "$SLOWDNS_TIMEOUT_SECONDS" --connect-timeout 10 \
      -H 'Content-Type: application/json' -H 'Accept: application/json' \
      -H "User-Agent: slowdns-activate.sh/$ACTIVATE_SH_VERSION" \
      --data-binary "@$work_dir/request" "${SLOWDNS_URL%/}$2" 2>"$work_dir/curl-error") || STATUS=000
    RETRY_AFTER=$(sed -n 's/^[Rr]etry-[Aa]fter: *\([0-9][0-9]*\).*/\1/p' "$work_dir/headers" 2>/dev/null | head -n 1)
    if [ "$STATUS" != 000 ] && [ "$STATUS" != 503 ]; then return 0; fi
    if [ "$attempt" -ge "$SLOWDNS_MAX_RETRIES" ]; then
      if [ "$STATUS" = 000 ]; then die network "no answer from $SLOWDNS_URL: $(head -c 200 "$work_dir/curl-error")"; fi
      return 0
    fi
    if [ "$STATUS" = 503 ] && [ -n "$RETRY_AFTER" ] && [ "$RETRY_AFTER" -gt 300 ]; then return 0; fi
    attempt=$((attempt + 1))
    delay=$(( (1 << (attempt - 1)) * ${SLOWDNS_RETRY_BASE_SECONDS:-1} ))
    [ "$delay" -le 30 ] || delay=30
    # Jitter: up to a second more, so that many machines do not come back in step.
    delay=$((delay + $(od -An -N1 -tu1 /dev/urandom | tr -d ' ') % 2))
    if [ "$STATUS" = 503 ] && [ -n "$RETRY_AFTER" ] && [ "$RETRY_AFTER" -gt "$delay" ]; then delay=$RETRY_AFTER; fi
    if [ "$STATUS" = 503 ]; then reason='the service is unavailable'; else reason='no answer'; fi
    say "$reason; trying again in $(retry_wait_words "$delay") (attempt $((attempt + 1)) of $((SLOWDNS_MAX_RETRIES + 1)))"
    pause "$delay"
  done
}

# Turns an answer that is not 2xx into its exit code, with the service's own message.
fail_on_error() {
  case "$STATUS" in 2??) return 0 ;; esac
  code=$(json_get code "$BODY")
  message=$(json_get message "$BODY")
  [ -n "$code" ] || { code=internal_error; message="unexpected HTTP $STATUS answer from $SLOWDNS_URL"; }
  if [ "$code" = rate_limit_exceeded ] && [ -n "$RETRY_AFTER" ]; then
    message="$message This script does not retry a rate limit: run it again in $(retry_wait_words "$RETRY_AFTER")."
  fi
  if [ "$code" = machine_mismatch ] || [ "$code" = install_code_unavailable ]; then message="$message $CLONED_IMAGE_HINT"; fi
  die "$code" "$message ($code)"
}

# --- steps --------------------------------------------------------------------------------------

do_precheck() {
  read_install_code
  read_machine
  request "$(printf '{"install_code":"%s","machine_id":"%s","ssh_fingerprint":"%s","product":"slowdns","installer_version":"%s"}' \
    "$INSTALL_CODE" "$MACHINE_ID" "$SSH_FINGERPRINT" "$SLOWDNS_INSTALLER_VERSION")"
  api POST /api/v2/slowdns/install/precheck
  fail_on_error
  token=$(json_get precheck_token "$BODY")
  shell_safe "$token" || die internal_error 'the precheck answer has no usable precheck_token'
  state_set precheck_token "$token"
  # The hint (SDNS-SD-…HX3W8N) as its two shell-safe halves: the state file holds nothing else.
  hint=$(json_get install_code_hint "$BODY")
  if shell_safe "${hint%%…*}" && shell_safe "${hint##*…}"; then
    state_set hint_start "${hint%%…*}"
    state_set hint_end "${hint##*…}"
  fi
  # Who decides when the code waits for approval: the person on the page, or an operator (a fleet code).
  approval_by=$(json_get approval_by "$BODY")
  case "$approval_by" in person | operator) state_set approval_by "$approval_by" ;; *) state_unset approval_by ;; esac
  precheck_id=$(json_get precheck_id "$BODY")
  if [ -n "$precheck_id" ] && shell_safe "$precheck_id"; then state_set precheck_id "$precheck_id"; else state_unset precheck_id; fi
  # What activate's machine proof signs, and whether the service requires one (DESIGN §24).
  challenge=$(json_get proof_challenge "$BODY")
  if shell_safe "$challenge"; then state_set proof_challenge "$challenge"; else state_unset proof_challenge; fi
  policy=$(json_get machine_proof "$BODY")
  if shell_safe "$policy"; then state_set machine_proof "$policy"; else state_unset machine_proof; fi
  OBSERVED_IP=$(json_get observed_ip "$BODY")
  say "install code $(json_get install_code_hint "$BODY") is valid for this machine (the service sees it at ${OBSERVED_IP:-an unknown address})"
}

confirm_address() {
  HOSTNAME_CONFIRMED=${SLOWDNS_HOSTNAME:-}
  PUBLIC_IP_CONFIRMED=${SLOWDNS_PUBLIC_IP:-}
  if [ -z "$HOSTNAME_CONFIRMED" ] || [ -z "$PUBLIC_IP_CONFIRMED" ]; then
    may_ask || die validation_failed 'set SLOWDNS_HOSTNAME and SLOWDNS_PUBLIC_IP, or run on a terminal to confirm them'
    default_host=$(hostname -f 2>/dev/null || hostname)
    default_ip=${OBSERVED_IP:-}
    printf 'Hostname [%s]: ' "$default_host" >/dev/tty
    IFS= read -r answer </dev/tty || true
    HOSTNAME_CONFIRMED=${answer:-$default_host}
    printf 'Public IP [%s]: ' "$default_ip" >/dev/tty
    IFS= read -r answer </dev/tty || true
    PUBLIC_IP_CONFIRMED=${answer:-$default_ip}
    printf 'Activate %s (%s)? [y/N] ' "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED" >/dev/tty
    IFS= read -r answer </dev/tty || true
    case "$answer" in y | Y | yes) ;; *) die validation_failed 'not confirmed: nothing was activated' ;; esac
  fi
  if [ "$PUBLIC_IP_CONFIRMED" = observed ]; then PUBLIC_IP_CONFIRMED=$(observed_address); fi
  case "$HOSTNAME_CONFIRMED" in '' | *[!A-Za-z0-9.-]*) die validation_failed 'the hostname may hold only letters, digits, dots and hyphens' ;; esac
  case "$PUBLIC_IP_CONFIRMED" in '' | *[!0-9A-Fa-f.:]*) die validation_failed 'the public IP must be an IPv4 or IPv6 address' ;; esac
}

do_activate() {
  [ -n "${INSTALL_CODE:-}" ] || read_install_code
  [ -n "${MACHINE_ID:-}" ] || read_machine
  precheck_token=$(state_get precheck_token)
  [ -n "$precheck_token" ] || die validation_failed "no precheck token in $SLOWDNS_STATE_FILE: run the precheck first"
  confirm_address
  prove_machine
  activate_request="$(printf '{"install_code":"%s","precheck_token":"%s","hostname":"%s","public_ip":"%s","machine_id":"%s","ssh_fingerprint":"%s","requested_ref":"%s","installer_version":"%s"' \
    "$INSTALL_CODE" "$precheck_token" "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED" "$MACHINE_ID" "$SSH_FINGERPRINT" "$SLOWDNS_REQUESTED_REF" "$SLOWDNS_INSTALLER_VERSION")"
  request "$activate_request$PROOF_JSON}"
  activate_when_approved
  if [ -n "$PROOF_JSON" ] && [ "$STATUS" = 403 ] && [ "$(json_get code "$BODY")" = machine_proof_invalid ] &&
    [ "$(state_get machine_proof)" != required ]; then
    # Optional here: a proof the service does not take (SLOWDNS_URL not the service's public address?) costs no install.
    say "the service did not accept this machine's SSH host-key proof (is $SLOWDNS_URL the service's own public address?): going on unproven"
    request "$activate_request}"
    activate_when_approved
  fi
  fail_on_error
  activation_id=$(json_get activation_id "$BODY")
  install_token=$(json_get install_token "$BODY")
  if ! shell_safe "$activation_id" || ! shell_safe "$install_token"; then die internal_error 'the activate answer has no usable activation'; fi
  state_set install_token "$install_token"
  state_set activation_id "$activation_id"
  state_set stage activated
  # A receipt kept from an earlier install is not this one's.
  rm -f "$(receipt_file)"
  say "activated $activation_id for $HOSTNAME_CONFIRMED ($PUBLIC_IP_CONFIRMED)$([ "$(json_get ssh_key_proven "$BODY")" = true ] && printf ', SSH host key proven')"
  if [ "$(json_get public_ip_matches_observed "$BODY")" = false ]; then
    say "note: the service saw this machine at $(json_get observed_ip "$BODY"), not $PUBLIC_IP_CONFIRMED (fine behind NAT; check for a typo otherwise)"
  fi
}

# Sends the activate `request` holds; while the code's owner has not approved this machine on the page
# (409 approval_pending) says so once and asks again after Retry-After, until they decide. The wait ends
# at the code's expiry at the latest: the precheck token never outlives the code, so the service then
# refuses it, and that is said as the code's expiry (exit 11). Denied: 403 approval_denied (exit 16).
say_who_decides() {
  hint="$(state_get hint_start)…$(state_get hint_end)"
  if [ "$(state_get approval_by)" = operator ]; then
    say "Waiting for an operator to approve this machine (code $hint, precheck $(state_get precheck_id)): in the console at ${SLOWDNS_URL%/}/admin, or with: slowdns codes approve"
  else
    say "Waiting for the person who got code $hint to approve this machine on the SlowDNS page (${SLOWDNS_URL%/}/slowdns)"
  fi
}

activate_when_approved() {
  waiting=''
  while :; do
    api POST /api/v2/slowdns/install/activate
    code=$(json_get code "$BODY")
    if [ "$STATUS" = 409 ] && [ "$code" = approval_pending ]; then :
    # Only the wait's own pace (a second copy of this script polling with the same token), never another limit.
    elif [ -n "$waiting" ] && [ "$STATUS" = 429 ] && grep -q approval-wait-precheck "$BODY"; then :
    elif [ -n "$waiting" ] && [ "$code" = precheck_token_invalid ]; then
      die install_code_expired 'no decision came on the SlowDNS page before the install code expired: ask for a new code and run again'
    else
      return 0
    fi
    if [ -z "$waiting" ]; then
      say_who_decides
      waiting=1
    fi
    delay=${RETRY_AFTER:-5}
    case "$delay" in '' | *[!0-9]*) delay=5 ;; esac
    [ "$delay" -ge 1 ] || delay=1
    pause "$delay"
  done
}

# The request of the steps that present the activation: its id and its install token (release too: the token is its proof).
activation_request() {
  activation_id=$(state_get activation_id)
  [ -n "$activation_id" ] || die validation_failed "no activation in $SLOWDNS_STATE_FILE: nothing to $1"
  request "$(printf '{"activation_id":"%s","install_token":"%s"}' "$activation_id" "$(state_get install_token)")"
}

do_confirm() {
  activation_request confirm
  api POST /api/v2/slowdns/install/confirm
  if [ "$STATUS" = 409 ] && [ "$(json_get code "$BODY")" = install_token_used ]; then
    # A resent confirm whose first copy arrived: ask where the install stands before calling it an error.
    activation_request confirm
    api POST /api/v2/slowdns/install/status
    [ "$(json_get status "$BODY")" = confirmed ] || die install_token_used 'the install token was already used'
  else
    fail_on_error
  fi
  save_receipt "$BODY"
  state_set stage confirmed
  say "install confirmed ($(state_get activation_id))"
}

do_release() {
  # The install token is the proof that this installer asks (the activation id alone is no secret).
  activation_request release
  api POST /api/v2/slowdns/install/release
  fail_on_error
  if [ "$(json_get install_code_restored "$BODY")" = true ]; then
    say 'activation released; the install code can be used again'
  else
    say 'activation released; the install code could not be restored: request a new one on the SlowDNS page'
  fi
  rm -f "$SLOWDNS_STATE_FILE"
}

do_status() {
  activation_request 'read back'
  api POST /api/v2/slowdns/install/status
  fail_on_error
  STATE_STATUS=$(json_get status "$BODY")
  STATE_EXPIRED=$(json_get install_token_expired "$BODY")
}

print_status() {
  do_status
  printf 'activation_id=%s\nstatus=%s\nhostname=%s\npublic_ip=%s\ninstall_token_expires_at=%s\ninstall_token_expired=%s\nrelease_restores_code=%s\nserver_registered=%s\n' \
    "$(state_get activation_id)" "$STATE_STATUS" "$(json_get hostname "$BODY")" "$(json_get public_ip "$BODY")" \
    "$(json_get install_token_expires_at "$BODY")" "$STATE_EXPIRED" "$(json_get release_restores_code "$BODY")" "$(json_get server_registered "$BODY")"
}

# The receipt kept at confirm; read back from the service (and kept) when the file is missing.
print_receipt() {
  if [ ! -s "$(receipt_file)" ]; then
    do_status
    [ "$STATE_STATUS" = confirmed ] || die validation_failed "no receipt: the install in $SLOWDNS_STATE_FILE is $STATE_STATUS, not confirmed"
    save_receipt "$BODY"
  fi
  cat "$(receipt_file)"
}

do_register() {
  token_file=${SLOWDNS_AGENT_TOKEN_FILE:-}
  [ -n "$token_file" ] || die validation_failed 'set SLOWDNS_AGENT_TOKEN_FILE: where to keep the agent token (it is shown only once)'
  activation_id=$(state_get activation_id)
  [ -n "$activation_id" ] || die validation_failed "no activation in $SLOWDNS_STATE_FILE: nothing to register"
  request "$(printf '{"activation_id":"%s","install_token":"%s","agent_version":"%s"}' "$activation_id" "$(state_get install_token)" "${SLOWDNS_AGENT_VERSION:-$SLOWDNS_INSTALLER_VERSION}")"
  api POST /register
  fail_on_error
  agent_token=$(json_get agent_token "$BODY")
  shell_safe "$agent_token" || die internal_error 'the register answer has no usable agent_token'
  mkdir -p "$(dirname "$token_file")"
  printf '%s\n' "$agent_token" >"$token_file"
  say "server registered as $(json_get server_id "$BODY"); agent token written to $token_file"
}

# --- run: the whole flow around the install command ----------------------------------------------

# On EXIT, INT, TERM and HUP: an activation that is not confirmed is released (the code restored if it can be).
on_exit() {
  status=$?
  trap - EXIT INT TERM HUP
  if [ -n "$child_pid" ]; then
    stop_install_group "$child_pid" "$child_pid"
    state_unset install_pgid
  fi
  if [ "$(state_get stage)" = activated ] && [ "${RUN_RELEASES:-}" = 1 ]; then
    say 'the install did not finish: releasing the activation'
    (SLOWDNS_MAX_RETRIES=1 do_release) || say "release failed; run 'activate.sh release' again (state: $SLOWDNS_STATE_FILE)"
  fi
  drop_lock
  rm -rf "$work_dir"
  exit "$status"
}

on_signal() { # exit the way the signal would have: 128 + its number
  say "interrupted by SIG$1"
  case "$1" in HUP) exit 129 ;; INT) exit 130 ;; *) exit 143 ;; esac
}

# A rerun with an unfinished activation in the state file: resume it, or clear what cannot be resumed.
# A code given now (not asked for) that is not the confirmed install's: running it would do nothing, so say
# what to do instead of exiting 0 as if it had installed.
refuse_other_code() {
  given=${SLOWDNS_INSTALL_CODE:-}
  if [ -n "$CODE_FILE" ]; then read_code_file "$CODE_FILE" --code-file; given=$CODE_FROM_FILE; fi
  given=$(printf '%s' "$given" | tr -cd 'A-Za-z0-9' | tr '[:lower:]' '[:upper:]' | tr 'ILO' '110')
  kept=$(state_get hint_end)
  [ -n "$given" ] && [ -n "$kept" ] || return 0
  [ "${given#"${given%??????}"}" != "$kept" ] || return 0
  die validation_failed "$SLOWDNS_STATE_FILE holds an install already confirmed with another code ($(state_get hint_start)…$kept, $(state_get activation_id)): to install again with this code, set SLOWDNS_STATE_FILE to another file (or move this one away)"
}

resume_or_clear() {
  [ -n "$(state_get activation_id)" ] || return 1
  activation_request 'resume'
  api POST /api/v2/slowdns/install/status
  case "$STATUS" in
    200) ;;
    401 | 404) say 'the activation in the state file is unknown to the service; starting again'; rm -f "$SLOWDNS_STATE_FILE"; return 1 ;;
    *) fail_on_error ;;
  esac
  case "$(json_get status "$BODY"):$(json_get install_token_expired "$BODY")" in
    confirmed:*)
      save_receipt "$BODY"
      refuse_other_code
      say "this install is already confirmed ($(state_get activation_id))"
      exit 0
      ;;
    activated:false)
      say "resuming activation $(state_get activation_id)"
      state_set stage activated
      RESUMED_SERVER_REGISTERED=$(json_get server_registered "$BODY")
      return 0
      ;;
    activated:true) say 'the activation in the state file has expired; releasing it and starting again'; do_release; return 1 ;;
    *) say 'the activation in the state file was released; starting again'; rm -f "$SLOWDNS_STATE_FILE"; return 1 ;;
  esac
}

do_run() {
  [ "${1:-}" = -- ] && shift
  [ "$#" -gt 0 ] || usage
  command -v setsid >/dev/null 2>&1 || die validation_failed 'run needs setsid (util-linux or busybox) to give the install command a process group of its own'
  RUN_RELEASES=1
  trap 'on_signal HUP' HUP
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  stop_orphaned_install
  if ! resume_or_clear; then
    do_precheck
    do_activate
  fi
  say "running: $*"
  # In the background, so that a signal reaches the trap at once; its stdin is this script's own.
  exec 3<&0
  SLOWDNS_ACTIVATION_ID=$(state_get activation_id) setsid "$@" <&3 3<&- &
  child_pid=$!
  state_set install_pgid "$child_pid"
  if wait "$child_pid"; then result=0; else result=$?; fi
  child_pid=''
  state_unset install_pgid
  if [ "$result" -ne 0 ]; then
    say "the install command failed (exit $result)"
    # on_exit releases; 40 says the install command failed, whatever the release answered.
    exit 40
  fi
  if [ -n "${SLOWDNS_AGENT_TOKEN_FILE:-}" ]; then
    # Once per activation (a second register is 409): a resumed install keeps the earlier run's agent token.
    if [ "${RESUMED_SERVER_REGISTERED:-}" = true ] && [ -s "$SLOWDNS_AGENT_TOKEN_FILE" ]; then
      say "the server is already registered (its agent token is in $SLOWDNS_AGENT_TOKEN_FILE)"
    else
      do_register
    fi
  fi
  do_confirm
}

main() {
  command -v curl >/dev/null 2>&1 || die network 'curl is required'
  work_dir=$(mktemp -d "${TMPDIR:-/tmp}/slowdns-activate.XXXXXX")
  trap on_exit EXIT
  while [ "$#" -gt 0 ]; do
    parse_option "$@"
    [ "$OPTION_WIDTH" -gt 0 ] || break
    shift "$OPTION_WIDTH"
  done
  command=${1:-}
  [ "$#" -gt 0 ] && shift
  # The same options between the command and `--` (or its end): `activate.sh run --code-file PATH -- …`.
  while [ "$#" -gt 0 ]; do
    parse_option "$@"
    [ "$OPTION_WIDTH" -gt 0 ] || break
    shift "$OPTION_WIDTH"
  done
  # Every command that writes the state file holds its lock to the end; status only reads it.
  case "$command" in precheck | activate | confirm | release | register | run) take_lock ;; esac
  case "$command" in
    precheck) do_precheck ;;
    activate) do_activate ;;
    confirm) do_confirm ;;
    release)
      stop_orphaned_install
      do_release
      ;;
    status) print_status ;;
    receipt) print_receipt ;;
    register) do_register ;;
    run) do_run "$@" ;;
    *) usage ;;
  esac
}

main "$@"
