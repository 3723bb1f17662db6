#!/bin/sh
# SlowDNS activation client: precheck, activate, confirm or release an install code around your
# installer. POSIX sh; needs only curl (jq is used when present). See README.md next to this file.
#
#   SLOWDNS_URL=https://activation.example.net SLOWDNS_INSTALL_CODE=SDNS-SD-… sh activate.sh run -- ./install.sh
#   SLOWDNS_URL=… sh activate.sh --code-file /run/slowdns/install-code run -- ./install.sh   (cloud-init, no terminal)
#   SLOWDNS_URL=… sh activate.sh --install-code-id ic_… --identity-token-file /var/run/secrets/tokens/slowdns run -- …
#     (a code that trusts the platform's signed identity, DESIGN §25: no secret on the machine)
#
# Exit codes (stable): 0 done; 2 usage (also: an answer was needed and there is no terminal to ask); 10 code not
# found; 11 code expired; 12 code in use, revoked or with no use left; 13 machine mismatch or a clone's identity;
# 14 token invalid, expired or used (or a release without proof); 15 activation already released or confirmed;
# 16 this machine was denied; 17 this machine's address or host name is not one the code allows;
# 18 this machine could not prove its SSH host key where proof is required; 19 the identity token was refused
# (or its issuer could not be reached) for a code that trusts workload identity;
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
CODE_ID=${SLOWDNS_INSTALL_CODE_ID:-}
IDENTITY_TOKEN_FILE=${SLOWDNS_IDENTITY_TOKEN_FILE:-}

say() { printf '%s\n' "activate.sh: $*" >&2; }

# msg <key> [value...]: says the message <key> of the catalogs (at the end of this file) in the person's language.
msg() { say "$(msg_text "$@")"; }

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
    identity_token_required | identity_token_invalid | identity_not_allowed | identity_token_replayed | identity_issuer_unavailable) echo 19 ;;
    rate_limit_exceeded) echo 20 ;;
    installer_outdated) echo 21 ;;
    network) echo 30 ;;
    *) echo 31 ;;
  esac
}

die() { # die <error code> <message key> [value...]
  code_of_exit=$(exit_code_for "$1")
  shift
  msg "$@"
  exit "$code_of_exit"
}

usage() {
  cat >&2 <<'EOF'
usage: activate.sh [--code-file PATH | --install-code-id ID --identity-token-file PATH] [--host-key FILE]
                   [--non-interactive] <command>
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
A code that trusts workload identity has no secret: give its id (--install-code-id or SLOWDNS_INSTALL_CODE_ID)
and the file the platform writes its signed identity token to (--identity-token-file or
SLOWDNS_IDENTITY_TOKEN_FILE), read again at each precheck as platforms rotate it.
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
  shell_safe "$2" || die internal_error state_value_unexpected "$1"
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
  shell_safe "$receipt" || die internal_error receipt_not_jws
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
    [ -d "$LOCK_DIR" ] || die validation_failed lock_cannot_create "$LOCK_DIR"
    owner=$(cat "$LOCK_DIR/pid" 2>/dev/null || true)
    if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
      die validation_failed lock_busy "$owner" "$SLOWDNS_STATE_FILE" "$LOCK_DIR"
    fi
    tries=$((tries + 1))
    [ "$tries" -le 3 ] || die validation_failed lock_cannot_take "$LOCK_DIR"
    # No pid yet: its owner may be between its mkdir and writing it.
    if [ -z "$owner" ] && [ "$tries" -lt 3 ]; then sleep 1 && continue; fi
    # Renamed away first (of two runs doing so, one wins), then checked to be the lock that was seen stale.
    if mv "$LOCK_DIR" "$LOCK_DIR.$$" 2>/dev/null; then
      if [ "$(cat "$LOCK_DIR.$$/pid" 2>/dev/null || true)" = "$owner" ]; then
        rm -rf "$LOCK_DIR.$$"
        msg lock_taken_over "${owner:-?}"
      else
        mv "$LOCK_DIR.$$" "$LOCK_DIR" 2>/dev/null || true
      fi
    fi
  done
  printf '%s\n' "$$" >"$LOCK_DIR/pid" 2>/dev/null || die validation_failed lock_lost "$LOCK_DIR"
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
    msg orphan_stopping "$pgid"
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
    may_ask || die validation_failed no_install_code
    printf '%s' "$(msg_text prompt_install_code)" >/dev/tty
    IFS= read -r code </dev/tty || true
  fi
  # The service forgives case, spaces and look-alikes; keep only what a code can hold, so it embeds in JSON as is.
  code=$(printf '%s' "$code" | tr -cd 'A-Za-z0-9-')
  [ -n "$code" ] || die validation_failed install_code_empty
  INSTALL_CODE=$code
}

# identity_form: whether this run enrols with the platform's signed identity (DESIGN §25) instead of an install
# code; checks that what that needs is given, and nothing of the other form.
identity_form() {
  if [ -z "$CODE_ID" ]; then
    [ -z "$IDENTITY_TOKEN_FILE" ] || die validation_failed identity_needs_code_id
    return 1
  fi
  [ -n "$IDENTITY_TOKEN_FILE" ] || die validation_failed identity_needs_token_file
  if [ -n "$CODE_FILE" ] || [ -n "${SLOWDNS_INSTALL_CODE:-}" ] || [ -n "${SLOWDNS_INSTALL_CODE_FILE:-}" ]; then
    die validation_failed code_and_code_id
  fi
  case "$CODE_ID" in
    ic_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
    *) die validation_failed install_code_id_invalid "$(printf '%s' "$CODE_ID" | tr -cd 'A-Za-z0-9_-' | head -c 40)" ;;
  esac
  return 0
}

# read_identity_token: IDENTITY_TOKEN from its file, read at each precheck (platforms rotate the file: a Kubernetes
# projected token, a CI job's fresh token). It is a JWT, so it embeds in JSON as is; it is never printed.
read_identity_token() {
  if [ -z "$IDENTITY_TOKEN_FILE" ] || [ ! -f "$IDENTITY_TOKEN_FILE" ] || [ ! -r "$IDENTITY_TOKEN_FILE" ]; then
    die validation_failed identity_token_unreadable "$IDENTITY_TOKEN_FILE" "$(identity_token_source)"
  fi
  IDENTITY_TOKEN=$(tr -d ' \t\r\n' <"$IDENTITY_TOKEN_FILE")
  case "$IDENTITY_TOKEN" in
    '' | *[!A-Za-z0-9._-]*) die validation_failed identity_token_unusable "$IDENTITY_TOKEN_FILE" "$(identity_token_source)" ;;
  esac
}

identity_token_source() {
  if [ "$IDENTITY_TOKEN_FILE" = "${SLOWDNS_IDENTITY_TOKEN_FILE:-}" ]; then echo SLOWDNS_IDENTITY_TOKEN_FILE; else echo --identity-token-file; fi
}

read_machine() {
  [ -r "$SLOWDNS_MACHINE_ID_FILE" ] || die validation_failed machine_id_unreadable "$SLOWDNS_MACHINE_ID_FILE"
  MACHINE_ID=$(tr -d ' \t\r\n' <"$SLOWDNS_MACHINE_ID_FILE")
  case "$MACHINE_ID" in
    *[!0-9a-f]* | '') die validation_failed machine_id_invalid "$SLOWDNS_MACHINE_ID_FILE" ;;
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
    [ -n "$key" ] || die validation_failed host_key_not_found
    command -v ssh-keygen >/dev/null 2>&1 || die validation_failed ssh_keygen_missing_fingerprint
    SSH_FINGERPRINT=$(ssh-keygen -E sha256 -lf "$key" | awk '{print $2}')
  fi
  choose_signing_key "$key"
  case "$SSH_FINGERPRINT" in
    SHA256:*) ;;
    *) die validation_failed fingerprint_not_sha256 ;;
  esac
  case "$SSH_FINGERPRINT" in
    *[!A-Za-z0-9:+/]*) die validation_failed fingerprint_unexpected_characters ;;
  esac
}

# --- proving the machine: a signature by its SSH host key (DESIGN §24) ----------------------------

# host_key_public <private key file>: its public key file, FILE.pub, or derived from the key by ssh-keygen -y.
host_key_public() {
  if [ -r "$1.pub" ]; then printf '%s' "$1.pub" && return 0; fi
  [ -r "$1" ] || die validation_failed host_key_unreadable "$1"
  ssh-keygen -y -f "$1" >"$work_dir/host_key.pub" 2>/dev/null || die validation_failed host_key_not_private "$1"
  printf '%s' "$work_dir/host_key.pub"
}

# choose_signing_key <public key file>: SIGNING_KEY is the private key beside it when this user can read it and
# its fingerprint is the one sent; otherwise SIGNING_KEY is empty and NO_PROOF_REASON says why.
choose_signing_key() {
  SIGNING_KEY='' SIGNING_KEY_PUB=$1 NO_PROOF_REASON=''
  private=${HOST_KEY_OPTION:-${1%.pub}}
  if [ -z "$1" ] || [ ! -r "$private" ] || [ "$private" = "$1" ]; then
    NO_PROOF_REASON=$(msg_text no_proof_no_private_key)
  elif ! command -v ssh-keygen >/dev/null 2>&1; then
    NO_PROOF_REASON=$(msg_text no_proof_ssh_keygen_missing)
  elif [ "$(ssh-keygen -E sha256 -lf "$1" 2>/dev/null | awk '{print $2}')" != "$SSH_FINGERPRINT" ]; then
    NO_PROOF_REASON=$(msg_text no_proof_other_key "$private" "$SSH_FINGERPRINT")
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
  if [ -z "$challenge" ]; then why=$(msg_text no_proof_no_challenge); fi
  if [ -z "$why" ]; then
    printf 'slowdns-activate/1\nservice=%s\nchallenge=%s\nmachine_id=%s\nhostname=%s\npublic_ip=%s\n' \
      "$(service_origin)" "$challenge" "$MACHINE_ID" "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED" >"$work_dir/proof"
    rm -f "$work_dir/proof.sig"
    if ssh-keygen -Y sign -n slowdns-activate -f "$SIGNING_KEY" "$work_dir/proof" >/dev/null 2>"$work_dir/proof.err"; then
      PROOF_JSON=$(printf ',"ssh_host_key":"%s","ssh_key_signature":"%s"' \
        "$(awk '{printf "%s %s", $1, $2; exit}' "$SIGNING_KEY_PUB")" "$(sed 's/$/\\n/' "$work_dir/proof.sig" | tr -d '\n')")
      return 0
    fi
    why=$(msg_text no_proof_cannot_sign "$SIGNING_KEY" "$(head -c 200 "$work_dir/proof.err")")
  fi
  if [ "$(state_get machine_proof)" = required ]; then
    die machine_proof_required proof_required_cannot "$why"
  fi
  msg going_on_unproven "$why"
}

# --- unattended runs (cloud-init, Ansible, a golden image) --------------------------------------

# parse_option <argument> <next argument>: the script's own options, before the command or between it and
# `--`. Sets OPTION_WIDTH to how many arguments it took (0: not an option of ours).
parse_option() {
  OPTION_WIDTH=1
  case "$1" in
    --code-file)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed code_file_needs_path; fi
      CODE_FILE=$2
      OPTION_WIDTH=2
      ;;
    --code-file=*)
      CODE_FILE=${1#--code-file=}
      [ -n "$CODE_FILE" ] || die validation_failed code_file_needs_path
      ;;
    --host-key)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed host_key_needs_path; fi
      HOST_KEY_OPTION=$2
      OPTION_WIDTH=2
      ;;
    --host-key=*)
      HOST_KEY_OPTION=${1#--host-key=}
      [ -n "$HOST_KEY_OPTION" ] || die validation_failed host_key_needs_path
      ;;
    --install-code-id)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed code_id_needs_value; fi
      CODE_ID=$2
      OPTION_WIDTH=2
      ;;
    --install-code-id=*)
      CODE_ID=${1#--install-code-id=}
      [ -n "$CODE_ID" ] || die validation_failed code_id_needs_value
      ;;
    --identity-token-file)
      if [ "$#" -lt 2 ] || [ -z "$2" ]; then die validation_failed token_file_needs_path; fi
      IDENTITY_TOKEN_FILE=$2
      OPTION_WIDTH=2
      ;;
    --identity-token-file=*)
      IDENTITY_TOKEN_FILE=${1#--identity-token-file=}
      [ -n "$IDENTITY_TOKEN_FILE" ] || die validation_failed token_file_needs_path
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
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then die validation_failed code_file_unreadable "$1" "$2"; fi
  # ls -lnL is POSIX (stat is not): "-rw-------  1 0 0 …", the permissions, then the owner's uid.
  # shellcheck disable=SC2012
  set -- "$1" "$2" "$(ls -lnL "$1" | awk '{print $1 " " $3}')"
  case "${3%% *}" in
    ????------*) ;;
    *) die validation_failed code_file_open_to_others "$1" "$2" "${3%% *}" ;;
  esac
  case "${3#* }" in
    0 | "$(id -u)") ;;
    *) die validation_failed code_file_other_owner "$1" "$2" "${3#* }" ;;
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
  [ -n "${OBSERVED_IP:-}" ] || die validation_failed observed_needs_precheck
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
    *[!0-9]* | 0) die validation_failed max_wait_invalid ;;
    *) [ "$wait_for" -le "$SLOWDNS_MAX_WAIT_SECONDS" ] || wait_for=$SLOWDNS_MAX_WAIT_SECONDS ;;
  esac
  sleep "$wait_for"
}

# request <json>: writes the body of the next POST to a file. Never a pipe into api: sh runs the parts of
# a pipeline in subshells, and api's results would be lost with them.
request() { printf '%s' "$1" >"$work_dir/request"; }

# api POST <path>: sends the body `request` wrote; sets STATUS, BODY (a file) and RETRY_AFTER. Secrets go
# in a file curl reads, never on its command line (the process list). Retried with backoff only after a
# network failure or a 503, honouring Retry-After; never after 429.
api() {
  [ -n "$SLOWDNS_URL" ] || die validation_failed url_missing
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
      if [ "$STATUS" = 000 ]; then die network no_answer_from "$SLOWDNS_URL" "$(head -c 200 "$work_dir/curl-error")"; fi
      return 0
    fi
    if [ "$STATUS" = 503 ] && [ -n "$RETRY_AFTER" ] && [ "$RETRY_AFTER" -gt 300 ]; then return 0; fi
    attempt=$((attempt + 1))
    delay=$(( (1 << (attempt - 1)) * ${SLOWDNS_RETRY_BASE_SECONDS:-1} ))
    [ "$delay" -le 30 ] || delay=30
    # Jitter: up to a second more, so that many machines do not come back in step.
    delay=$((delay + $(od -An -N1 -tu1 /dev/urandom | tr -d ' ') % 2))
    if [ "$STATUS" = 503 ] && [ -n "$RETRY_AFTER" ] && [ "$RETRY_AFTER" -gt "$delay" ]; then delay=$RETRY_AFTER; fi
    if [ "$STATUS" = 503 ]; then retry_key=retry_unavailable; else retry_key=retry_no_answer; fi
    msg "$retry_key" "$(retry_wait_words "$delay")" "$((attempt + 1))" "$((SLOWDNS_MAX_RETRIES + 1))"
    pause "$delay"
  done
}

# Turns an answer that is not 2xx into its exit code, with the service's own message.
fail_on_error() {
  case "$STATUS" in 2??) return 0 ;; esac
  code=$(json_get code "$BODY")
  message=$(json_get message "$BODY")
  [ -n "$code" ] || { code=internal_error; message=$(msg_text unexpected_http_answer "$STATUS" "$SLOWDNS_URL"); }
  # The service's message stays English (DESIGN §30: codes and messages of the API are the contract); what this
  # script adds to it is said in the person's language.
  if [ "$code" = rate_limit_exceeded ] && [ -n "$RETRY_AFTER" ]; then
    message="$message $(msg_text rate_limit_not_retried "$(retry_wait_words "$RETRY_AFTER")")"
  fi
  if [ "$code" = machine_mismatch ] || [ "$code" = install_code_unavailable ]; then message="$message $(msg_text cloned_image_hint)"; fi
  die "$code" service_refused "$message" "$code"
}

# --- steps --------------------------------------------------------------------------------------

do_precheck() {
  if identity_form; then
    read_identity_token
    code_form=$(printf '"install_code_id":"%s","identity_token":"%s"' "$CODE_ID" "$IDENTITY_TOKEN")
  else
    read_install_code
    code_form=$(printf '"install_code":"%s"' "$INSTALL_CODE")
  fi
  read_machine
  request "$(printf '{%s,"machine_id":"%s","ssh_fingerprint":"%s","product":"slowdns","installer_version":"%s"}' \
    "$code_form" "$MACHINE_ID" "$SSH_FINGERPRINT" "$SLOWDNS_INSTALLER_VERSION")"
  api POST /api/v2/slowdns/install/precheck
  fail_on_error
  token=$(json_get precheck_token "$BODY")
  shell_safe "$token" || die internal_error precheck_answer_unusable
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
  identity_sub=$(json_get sub "$BODY")
  if [ -n "$identity_sub" ]; then msg precheck_identity "$identity_sub" "$(json_get iss "$BODY")"; fi
  OBSERVED_IP=$(json_get observed_ip "$BODY")
  if [ -n "$OBSERVED_IP" ]; then
    msg precheck_valid "$(json_get install_code_hint "$BODY")" "$OBSERVED_IP"
  else
    msg precheck_valid_address_unknown "$(json_get install_code_hint "$BODY")"
  fi
}

confirm_address() {
  HOSTNAME_CONFIRMED=${SLOWDNS_HOSTNAME:-}
  PUBLIC_IP_CONFIRMED=${SLOWDNS_PUBLIC_IP:-}
  if [ -z "$HOSTNAME_CONFIRMED" ] || [ -z "$PUBLIC_IP_CONFIRMED" ]; then
    may_ask || die validation_failed address_unconfirmed
    default_host=$(hostname -f 2>/dev/null || hostname)
    default_ip=${OBSERVED_IP:-}
    printf '%s' "$(msg_text prompt_hostname "$default_host")" >/dev/tty
    IFS= read -r answer </dev/tty || true
    HOSTNAME_CONFIRMED=${answer:-$default_host}
    printf '%s' "$(msg_text prompt_public_ip "$default_ip")" >/dev/tty
    IFS= read -r answer </dev/tty || true
    PUBLIC_IP_CONFIRMED=${answer:-$default_ip}
    printf '%s' "$(msg_text prompt_activate "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED")" >/dev/tty
    IFS= read -r answer </dev/tty || true
    answer_is_yes "$answer" || die validation_failed not_confirmed
  fi
  if [ "$PUBLIC_IP_CONFIRMED" = observed ]; then PUBLIC_IP_CONFIRMED=$(observed_address); fi
  case "$HOSTNAME_CONFIRMED" in '' | *[!A-Za-z0-9.-]*) die validation_failed hostname_invalid ;; esac
  case "$PUBLIC_IP_CONFIRMED" in '' | *[!0-9A-Fa-f.:]*) die validation_failed public_ip_invalid ;; esac
}

do_activate() {
  # The identity form sends the code's id alone: the precheck token says the identity precheck made it.
  if identity_form; then
    code_form=$(printf '"install_code_id":"%s"' "$CODE_ID")
  else
    [ -n "${INSTALL_CODE:-}" ] || read_install_code
    code_form=$(printf '"install_code":"%s"' "$INSTALL_CODE")
  fi
  [ -n "${MACHINE_ID:-}" ] || read_machine
  precheck_token=$(state_get precheck_token)
  [ -n "$precheck_token" ] || die validation_failed no_precheck_token "$SLOWDNS_STATE_FILE"
  confirm_address
  prove_machine
  activate_request="$(printf '{%s,"precheck_token":"%s","hostname":"%s","public_ip":"%s","machine_id":"%s","ssh_fingerprint":"%s","requested_ref":"%s","installer_version":"%s"' \
    "$code_form" "$precheck_token" "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED" "$MACHINE_ID" "$SSH_FINGERPRINT" "$SLOWDNS_REQUESTED_REF" "$SLOWDNS_INSTALLER_VERSION")"
  request "$activate_request$PROOF_JSON}"
  activate_when_approved
  if [ -n "$PROOF_JSON" ] && [ "$STATUS" = 403 ] && [ "$(json_get code "$BODY")" = machine_proof_invalid ] &&
    [ "$(state_get machine_proof)" != required ]; then
    # Optional here: a proof the service does not take (SLOWDNS_URL not the service's public address?) costs no install.
    msg proof_not_accepted "$SLOWDNS_URL"
    request "$activate_request}"
    activate_when_approved
  fi
  fail_on_error
  activation_id=$(json_get activation_id "$BODY")
  install_token=$(json_get install_token "$BODY")
  if ! shell_safe "$activation_id" || ! shell_safe "$install_token"; then die internal_error activate_answer_unusable; fi
  state_set install_token "$install_token"
  state_set activation_id "$activation_id"
  state_set stage activated
  # A receipt kept from an earlier install is not this one's.
  rm -f "$(receipt_file)"
  if [ "$(json_get ssh_key_proven "$BODY")" = true ]; then activated_key=activated_proven; else activated_key=activated; fi
  msg "$activated_key" "$activation_id" "$HOSTNAME_CONFIRMED" "$PUBLIC_IP_CONFIRMED"
  if [ "$(json_get public_ip_matches_observed "$BODY")" = false ]; then
    msg observed_address_differs "$(json_get observed_ip "$BODY")" "$PUBLIC_IP_CONFIRMED"
  fi
}

# Sends the activate `request` holds; while the code's owner has not approved this machine on the page
# (409 approval_pending) says so once and asks again after Retry-After, until they decide. The wait ends
# at the code's expiry at the latest: the precheck token never outlives the code, so the service then
# refuses it, and that is said as the code's expiry (exit 11). Denied: 403 approval_denied (exit 16).
say_who_decides() {
  hint="$(state_get hint_start)…$(state_get hint_end)"
  if [ "$(state_get approval_by)" = operator ]; then
    msg waiting_for_operator "$hint" "$(state_get precheck_id)" "${SLOWDNS_URL%/}/admin" 'slowdns codes approve'
  else
    msg waiting_for_person "$hint" "${SLOWDNS_URL%/}/slowdns"
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
      die install_code_expired no_decision_before_expiry
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

# activation_request <message key>: the request of the steps that present the activation: its id and its install
# token (release too: the token is its proof); without an activation, the message <key> (no_activation_to_…).
activation_request() {
  activation_id=$(state_get activation_id)
  [ -n "$activation_id" ] || die validation_failed "$1" "$SLOWDNS_STATE_FILE"
  request "$(printf '{"activation_id":"%s","install_token":"%s"}' "$activation_id" "$(state_get install_token)")"
}

do_confirm() {
  activation_request no_activation_to_confirm
  api POST /api/v2/slowdns/install/confirm
  if [ "$STATUS" = 409 ] && [ "$(json_get code "$BODY")" = install_token_used ]; then
    # A resent confirm whose first copy arrived: ask where the install stands before calling it an error.
    activation_request no_activation_to_confirm
    api POST /api/v2/slowdns/install/status
    [ "$(json_get status "$BODY")" = confirmed ] || die install_token_used install_token_already_used
  else
    fail_on_error
  fi
  save_receipt "$BODY"
  state_set stage confirmed
  msg install_confirmed "$(state_get activation_id)"
}

do_release() {
  # The install token is the proof that this installer asks (the activation id alone is no secret).
  activation_request no_activation_to_release
  api POST /api/v2/slowdns/install/release
  fail_on_error
  if [ "$(json_get install_code_restored "$BODY")" = true ]; then
    msg released_code_restored
  else
    msg released_code_not_restored
  fi
  rm -f "$SLOWDNS_STATE_FILE"
}

do_status() {
  activation_request no_activation_to_read_back
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
    [ "$STATE_STATUS" = confirmed ] || die validation_failed no_receipt_not_confirmed "$SLOWDNS_STATE_FILE" "$STATE_STATUS"
    save_receipt "$BODY"
  fi
  cat "$(receipt_file)"
}

do_register() {
  token_file=${SLOWDNS_AGENT_TOKEN_FILE:-}
  [ -n "$token_file" ] || die validation_failed agent_token_file_missing
  activation_id=$(state_get activation_id)
  [ -n "$activation_id" ] || die validation_failed no_activation_to_register "$SLOWDNS_STATE_FILE"
  request "$(printf '{"activation_id":"%s","install_token":"%s","agent_version":"%s"}' "$activation_id" "$(state_get install_token)" "${SLOWDNS_AGENT_VERSION:-$SLOWDNS_INSTALLER_VERSION}")"
  api POST /register
  fail_on_error
  agent_token=$(json_get agent_token "$BODY")
  shell_safe "$agent_token" || die internal_error register_answer_unusable
  mkdir -p "$(dirname "$token_file")"
  printf '%s\n' "$agent_token" >"$token_file"
  msg server_registered "$(json_get server_id "$BODY")" "$token_file"
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
    msg install_unfinished_releasing
    (SLOWDNS_MAX_RETRIES=1 do_release) || msg release_failed "$SLOWDNS_STATE_FILE"
  fi
  drop_lock
  rm -rf "$work_dir"
  exit "$status"
}

on_signal() { # exit the way the signal would have: 128 + its number
  msg interrupted "SIG$1"
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
  die validation_failed confirmed_with_other_code "$SLOWDNS_STATE_FILE" "$(state_get hint_start)…$kept" "$(state_get activation_id)"
}

resume_or_clear() {
  [ -n "$(state_get activation_id)" ] || return 1
  activation_request no_activation_to_read_back
  api POST /api/v2/slowdns/install/status
  case "$STATUS" in
    200) ;;
    401 | 404) msg state_activation_unknown; rm -f "$SLOWDNS_STATE_FILE"; return 1 ;;
    *) fail_on_error ;;
  esac
  case "$(json_get status "$BODY"):$(json_get install_token_expired "$BODY")" in
    confirmed:*)
      save_receipt "$BODY"
      refuse_other_code
      msg already_confirmed "$(state_get activation_id)"
      exit 0
      ;;
    activated:false)
      msg resuming "$(state_get activation_id)"
      state_set stage activated
      RESUMED_SERVER_REGISTERED=$(json_get server_registered "$BODY")
      return 0
      ;;
    activated:true) msg state_activation_expired; do_release; return 1 ;;
    *) msg state_activation_released; rm -f "$SLOWDNS_STATE_FILE"; return 1 ;;
  esac
}

do_run() {
  [ "${1:-}" = -- ] && shift
  [ "$#" -gt 0 ] || usage
  command -v setsid >/dev/null 2>&1 || die validation_failed setsid_missing
  RUN_RELEASES=1
  trap 'on_signal HUP' HUP
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  stop_orphaned_install
  if ! resume_or_clear; then
    do_precheck
    do_activate
  fi
  msg running "$*"
  # In the background, so that a signal reaches the trap at once; its stdin is this script's own.
  exec 3<&0
  SLOWDNS_ACTIVATION_ID=$(state_get activation_id) setsid "$@" <&3 3<&- &
  child_pid=$!
  state_set install_pgid "$child_pid"
  if wait "$child_pid"; then result=0; else result=$?; fi
  child_pid=''
  state_unset install_pgid
  if [ "$result" -ne 0 ]; then
    msg install_command_failed "$result"
    # on_exit releases; 40 says the install command failed, whatever the release answered.
    exit 40
  fi
  if [ -n "${SLOWDNS_AGENT_TOKEN_FILE:-}" ]; then
    # Once per activation (a second register is 409): a resumed install keeps the earlier run's agent token.
    if [ "${RESUMED_SERVER_REGISTERED:-}" = true ] && [ -s "$SLOWDNS_AGENT_TOKEN_FILE" ]; then
      msg already_registered "$SLOWDNS_AGENT_TOKEN_FILE"
    else
      do_register
    fi
  fi
  do_confirm
}

main() {
  choose_language
  command -v curl >/dev/null 2>&1 || die network curl_missing
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

# === messages (DESIGN §30) ========================================================================
# Everything this script says to the person, in their language: the functions that choose and fill a message,
# then one catalog per language, English the source. A message is a single-quoted literal in its catalog and
# reaches printf only as an argument (`say` prints it with the fixed format '%s\n'): `fill` puts the values in
# for %1…%9 in one pass, so neither a translation nor a value is ever read as a format, run or expanded.
# test/shell/activate-sh-messages.test.ts holds the catalogs to that: no ' \ ` $( nor a % other than %1…%9,
# no bidi controls, every key of English in every language with the same placeholders, every key used.
# The service's own error messages stay English (codes and messages of the API are the contract).

MESSAGE_LANGUAGE=''
VALUE_START=''
VALUE_END=''

# choose_language: MESSAGE_LANGUAGE from LC_ALL, else LC_MESSAGES, else LANG (the order POSIX gives them), as
# language[_TERRITORY][.codeset][@modifier]. A locale whose codeset is not UTF-8 (ru_RU.KOI8-R) is said in
# English: the catalogs are UTF-8. Chinese is Simplified Chinese (zh, zh_CN, zh_SG); zh_TW and zh_HK, like any
# language without a catalog, get English.
choose_language() {
  chosen_locale=${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}
  chosen_locale=${chosen_locale%%@*}
  case "$chosen_locale" in
    *.*)
      case "${chosen_locale#*.}" in [Uu][Tt][Ff]-8 | [Uu][Tt][Ff]8) chosen_locale=${chosen_locale%%.*} ;; *) chosen_locale=C ;; esac
      ;;
  esac
  case "$chosen_locale" in
    es | es_* | es-*) MESSAGE_LANGUAGE='es' ;;
    ru | ru_* | ru-*) MESSAGE_LANGUAGE='ru' ;;
    id | id_* | id-*) MESSAGE_LANGUAGE='id' ;;
    tr | tr_* | tr-*) MESSAGE_LANGUAGE='tr' ;;
    zh | zh_CN | zh_SG | zh-CN | zh-SG | zh_Hans | zh_Hans_* | zh-Hans | zh-Hans-*) MESSAGE_LANGUAGE='zh_Hans' ;;
    fa | fa_* | fa-*) MESSAGE_LANGUAGE='fa' ;;
    ar | ar_* | ar-*) MESSAGE_LANGUAGE='ar' ;;
    *) MESSAGE_LANGUAGE='en' ;;
  esac
  # Persian and Arabic only where no terminal shows them. A terminal puts one character in each cell from left to
  # right: it neither orders right-to-left text nor joins Arabic letters, so a Persian or Arabic line there (with
  # the paths, addresses and codes inside it) cannot be read. A run with a terminal, even with its output piped
  # through tee or into a file, is watched on that terminal: English. A run without one (cloud-init, a control
  # panel, setsid, systemd) writes to a log or to a program, read in a browser or an editor that lays the text out:
  # there the language is kept, each value isolated (U+2068 FSI … U+2069 PDI) so its direction is its own.
  case "$MESSAGE_LANGUAGE" in
    fa | ar)
      if have_terminal; then
        MESSAGE_LANGUAGE=en
      else
        VALUE_START=$(printf '\342\201\250')
        VALUE_END=$(printf '\342\201\251')
      fi
      ;;
  esac
}

# msg_text <key> [value...]: the message <key> in MESSAGE_LANGUAGE (English where its catalog lacks the key; the
# key itself where English does too), its %1…%9 filled with the values.
msg_text() {
  [ -n "$MESSAGE_LANGUAGE" ] || choose_language
  message_key=$1
  shift
  template=''
  "catalog_$MESSAGE_LANGUAGE" "$message_key"
  [ -n "$template" ] || catalog_en "$message_key"
  fill "${template:-$message_key}" "$@"
}

# fill <template> [value...]: the template with %N replaced by the Nth value, in one pass: a value holding %2 is
# not filled again.
fill() {
  unfilled=$1
  shift
  filled=''
  while :; do
    case "$unfilled" in *[%][1-9]*) ;; *) break ;; esac
    filled=$filled${unfilled%%[%][1-9]*}
    unfilled=${unfilled#"${unfilled%%[%][1-9]*}"}
    case "$unfilled" in
      %1*) value=${1-} ;;
      %2*) value=${2-} ;;
      %3*) value=${3-} ;;
      %4*) value=${4-} ;;
      %5*) value=${5-} ;;
      %6*) value=${6-} ;;
      %7*) value=${7-} ;;
      %8*) value=${8-} ;;
      *) value=${9-} ;;
    esac
    filled=$filled$VALUE_START$value$VALUE_END
    unfilled=${unfilled#??}
  done
  printf '%s' "$filled$unfilled"
}

# plural_category <whole number>: its CLDR plural category in MESSAGE_LANGUAGE (the whole-number rules).
plural_category() {
  case "$MESSAGE_LANGUAGE" in
    en | es | tr) if [ "$1" -eq 1 ]; then echo one; else echo other; fi ;;
    fa) if [ "$1" -le 1 ]; then echo one; else echo other; fi ;;
    ru)
      if [ $(($1 % 10)) -eq 1 ] && [ $(($1 % 100)) -ne 11 ]; then echo one
      elif [ $(($1 % 10)) -ge 2 ] && [ $(($1 % 10)) -le 4 ] && { [ $(($1 % 100)) -lt 12 ] || [ $(($1 % 100)) -gt 14 ]; }; then echo few
      else echo many; fi
      ;;
    ar)
      if [ "$1" -le 2 ]; then
        case "$1" in 0) echo zero ;; 1) echo one ;; *) echo two ;; esac
      elif [ $(($1 % 100)) -ge 3 ] && [ $(($1 % 100)) -le 10 ]; then echo few
      elif [ $(($1 % 100)) -ge 11 ]; then echo many
      else echo other; fi
      ;;
    *) echo other ;;
  esac
}

# count_words <seconds|minutes|hours> <whole number>: "3 minutes", in the plural form the number takes.
count_words() { msg_text "count_${1}_$(plural_category "$2")" "$2"; }

retry_wait_words() { # seconds → "3 minutes" (or "2 hours 13 minutes"), for people, in their language
  if [ "$1" -ge 3600 ] && [ $(($1 % 3600 / 60)) -gt 0 ]; then
    msg_text duration_hours_minutes "$(count_words hours $(($1 / 3600)))" "$(count_words minutes $(($1 % 3600 / 60)))"
  elif [ "$1" -ge 3600 ]; then count_words hours $(($1 / 3600))
  elif [ "$1" -ge 60 ]; then count_words minutes $((($1 + 59) / 60))
  else count_words seconds "$1"; fi
}

# answer_is_yes <answer>: y, Y or yes, or a yes of the person's language (answer_yes: the words, space-separated).
answer_is_yes() {
  case "$1" in '' | *' '*) return 1 ;; esac
  case " y Y yes $(msg_text answer_yes) " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# --- catalogs: `key) template='…' ;;`, one line each -----------------------------------------------------------

# The typographic apostrophe (’) is meant: an ASCII one would end the quoted literal.
# shellcheck disable=SC1112
catalog_en() {
  case "$1" in
    state_value_unexpected) template='refusing to store an unexpected value for %1' ;;
    receipt_not_jws) template='the answer has a receipt that is not a compact JWS' ;;
    lock_cannot_create) template='cannot create the lock %1' ;;
    lock_busy) template='another activate.sh (process %1) is using %2: wait for it to end (if no such process runs, remove %3)' ;;
    lock_cannot_take) template='cannot take the lock %1' ;;
    lock_taken_over) template='taking over the lock of process %1, which has ended' ;;
    lock_lost) template='another activate.sh took the lock %1' ;;
    orphan_stopping) template='the install command of an earlier run is still running (process group %1): stopping it' ;;
    no_install_code) template='no install code: give --code-file PATH or set SLOWDNS_INSTALL_CODE, or run on a terminal' ;;
    prompt_install_code) template='Install code (from the SlowDNS page): ' ;;
    install_code_empty) template='the install code is empty' ;;
    machine_id_unreadable) template='cannot read %1 (set SLOWDNS_MACHINE_ID_FILE)' ;;
    machine_id_invalid) template='%1 does not hold a machine id (32 lower-case hex characters)' ;;
    host_key_not_found) template='no SSH host key found in /etc/ssh (set SLOWDNS_SSH_HOST_KEY or SLOWDNS_SSH_FINGERPRINT)' ;;
    ssh_keygen_missing_fingerprint) template='ssh-keygen is missing (set SLOWDNS_SSH_FINGERPRINT)' ;;
    fingerprint_not_sha256) template='the SSH fingerprint is not SHA256:… (ssh-keygen -E sha256 -lf <host key>)' ;;
    fingerprint_unexpected_characters) template='the SSH fingerprint has unexpected characters' ;;
    host_key_unreadable) template='cannot read the host key %1 (--host-key)' ;;
    host_key_not_private) template='%1 is not an SSH private key (--host-key)' ;;
    no_proof_no_private_key) template='no SSH host private key this user can read (run as root, or name one with --host-key)' ;;
    no_proof_ssh_keygen_missing) template='ssh-keygen is missing' ;;
    no_proof_other_key) template='the host key %1 is not the one of the fingerprint sent (%2)' ;;
    no_proof_no_challenge) template='the precheck gave no challenge (a service without machine proofs)' ;;
    no_proof_cannot_sign) template='ssh-keygen cannot sign with %1 (ssh-keygen -Y sign needs OpenSSH 8.1 or later): %2' ;;
    proof_required_cannot) template='this service requires machines to prove their SSH host key, and this one cannot: %1' ;;
    going_on_unproven) template='going on without proving this machine’s SSH host key: %1' ;;
    code_id_needs_value) template='--install-code-id needs the id of a code (ic_…)' ;;
    token_file_needs_path) template='--identity-token-file needs a path' ;;
    identity_needs_token_file) template='--install-code-id needs an identity token: give --identity-token-file PATH or set SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='an identity token needs the id of its code: give --install-code-id ID or set SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='give an install code or --install-code-id with an identity token, not both' ;;
    install_code_id_invalid) template='%1 is not the id of an install code (ic_ followed by 16 lower-case hex characters)' ;;
    identity_token_unreadable) template='cannot read the identity token file %1 (%2)' ;;
    identity_token_unusable) template='the identity token file %1 (%2) holds no token (a JWT: letters, digits, dots, - and _)' ;;
    precheck_identity) template='the service accepts this machine’s identity %1 from %2' ;;
    code_file_needs_path) template='--code-file needs a path' ;;
    host_key_needs_path) template='--host-key needs the path of an SSH host private key' ;;
    code_file_unreadable) template='cannot read the install code file %1 (%2)' ;;
    code_file_open_to_others) template='the install code file %1 (%2) may be read or written by others (%3): chmod 600 it' ;;
    code_file_other_owner) template='the install code file %1 (%2) belongs to another user (uid %3): it must be yours or root’s' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed needs the precheck in the same run (use run, or name the address)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS must be a whole number of seconds, at least 1' ;;
    url_missing) template='set SLOWDNS_URL to the activation service, e.g. https://activation.example.net' ;;
    no_answer_from) template='no answer from %1: %2' ;;
    retry_unavailable) template='the service is unavailable; trying again in %1 (attempt %2 of %3)' ;;
    retry_no_answer) template='no answer; trying again in %1 (attempt %2 of %3)' ;;
    unexpected_http_answer) template='unexpected HTTP %1 answer from %2' ;;
    rate_limit_not_retried) template='This script does not retry a rate limit: run it again in %1.' ;;
    cloned_image_hint) template='If this machine was cloned from an image, its /etc/machine-id and SSH host keys are copies shared with its siblings: give it its own (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) and run again.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='the precheck answer has no usable precheck_token' ;;
    precheck_valid) template='install code %1 is valid for this machine (the service sees it at %2)' ;;
    precheck_valid_address_unknown) template='install code %1 is valid for this machine (the service sees it at an unknown address)' ;;
    address_unconfirmed) template='set SLOWDNS_HOSTNAME and SLOWDNS_PUBLIC_IP, or run on a terminal to confirm them' ;;
    prompt_hostname) template='Hostname [%1]: ' ;;
    prompt_public_ip) template='Public IP [%1]: ' ;;
    prompt_activate) template='Activate %1 (%2)? [y/N] ' ;;
    answer_yes) template='y Y yes' ;;
    not_confirmed) template='not confirmed: nothing was activated' ;;
    hostname_invalid) template='the hostname may hold only letters, digits, dots and hyphens' ;;
    public_ip_invalid) template='the public IP must be an IPv4 or IPv6 address' ;;
    no_precheck_token) template='no precheck token in %1: run the precheck first' ;;
    proof_not_accepted) template='the service did not accept this machine’s SSH host-key proof (is %1 the service’s own public address?): going on unproven' ;;
    activate_answer_unusable) template='the activate answer has no usable activation' ;;
    activated) template='activated %1 for %2 (%3)' ;;
    activated_proven) template='activated %1 for %2 (%3), SSH host key proven' ;;
    observed_address_differs) template='note: the service saw this machine at %1, not %2 (fine behind NAT; check for a typo otherwise)' ;;
    waiting_for_operator) template='Waiting for an operator to approve this machine (code %1, precheck %2): in the console at %3, or with: %4' ;;
    waiting_for_person) template='Waiting for the person who got code %1 to approve this machine on the SlowDNS page (%2)' ;;
    no_decision_before_expiry) template='no decision came on the SlowDNS page before the install code expired: ask for a new code and run again' ;;
    no_activation_to_confirm) template='no activation in %1: nothing to confirm' ;;
    no_activation_to_release) template='no activation in %1: nothing to release' ;;
    no_activation_to_read_back) template='no activation in %1: nothing to read back' ;;
    no_activation_to_register) template='no activation in %1: nothing to register' ;;
    install_token_already_used) template='the install token was already used' ;;
    install_confirmed) template='install confirmed (%1)' ;;
    released_code_restored) template='activation released; the install code can be used again' ;;
    released_code_not_restored) template='activation released; the install code could not be restored: request a new one on the SlowDNS page' ;;
    no_receipt_not_confirmed) template='no receipt: the install in %1 is %2, not confirmed' ;;
    agent_token_file_missing) template='set SLOWDNS_AGENT_TOKEN_FILE: where to keep the agent token (it is shown only once)' ;;
    register_answer_unusable) template='the register answer has no usable agent_token' ;;
    server_registered) template='server registered as %1; agent token written to %2' ;;
    install_unfinished_releasing) template='the install did not finish: releasing the activation' ;;
    release_failed) template='release failed: run activate.sh release again (state: %1)' ;;
    interrupted) template='interrupted by %1' ;;
    confirmed_with_other_code) template='%1 holds an install already confirmed with another code (%2, %3): to install again with this code, set SLOWDNS_STATE_FILE to another file (or move this one away)' ;;
    state_activation_unknown) template='the activation in the state file is unknown to the service; starting again' ;;
    already_confirmed) template='this install is already confirmed (%1)' ;;
    resuming) template='resuming activation %1' ;;
    state_activation_expired) template='the activation in the state file has expired; releasing it and starting again' ;;
    state_activation_released) template='the activation in the state file was released; starting again' ;;
    setsid_missing) template='run needs setsid (util-linux or busybox) to give the install command a process group of its own' ;;
    running) template='running: %1' ;;
    install_command_failed) template='the install command failed (exit %1)' ;;
    already_registered) template='the server is already registered (its agent token is in %1)' ;;
    curl_missing) template='curl is required' ;;
    count_seconds_one) template='%1 second' ;;
    count_seconds_other) template='%1 seconds' ;;
    count_minutes_one) template='%1 minute' ;;
    count_minutes_other) template='%1 minutes' ;;
    count_hours_one) template='%1 hour' ;;
    count_hours_other) template='%1 hours' ;;
    duration_hours_minutes) template='%1 %2' ;;
  esac
}

# Spanish (usted).
catalog_es() {
  case "$1" in
    state_value_unexpected) template='se rechaza guardar un valor inesperado para %1' ;;
    receipt_not_jws) template='la respuesta trae un recibo que no es un JWS compacto' ;;
    lock_cannot_create) template='no se puede crear el bloqueo %1' ;;
    lock_busy) template='otro activate.sh (proceso %1) está usando %2: espere a que termine (si ese proceso ya no existe, borre %3)' ;;
    lock_cannot_take) template='no se puede tomar el bloqueo %1' ;;
    lock_taken_over) template='se toma el bloqueo del proceso %1, que ya terminó' ;;
    lock_lost) template='otro activate.sh tomó el bloqueo %1' ;;
    orphan_stopping) template='el comando de instalación de una ejecución anterior sigue en marcha (grupo de procesos %1): se detiene' ;;
    no_install_code) template='falta el código de instalación: indique --code-file RUTA o defina SLOWDNS_INSTALL_CODE, o ejecute el script en una terminal' ;;
    prompt_install_code) template='Código de instalación (de la página de SlowDNS): ' ;;
    install_code_empty) template='el código de instalación está vacío' ;;
    machine_id_unreadable) template='no se puede leer %1 (defina SLOWDNS_MACHINE_ID_FILE)' ;;
    machine_id_invalid) template='%1 no contiene un identificador de máquina (32 caracteres hexadecimales en minúscula)' ;;
    host_key_not_found) template='no se encontró ninguna clave de host SSH en /etc/ssh (defina SLOWDNS_SSH_HOST_KEY o SLOWDNS_SSH_FINGERPRINT)' ;;
    ssh_keygen_missing_fingerprint) template='falta ssh-keygen (defina SLOWDNS_SSH_FINGERPRINT)' ;;
    fingerprint_not_sha256) template='la huella SSH no tiene la forma SHA256:… (ssh-keygen -E sha256 -lf <clave de host>)' ;;
    fingerprint_unexpected_characters) template='la huella SSH contiene caracteres inesperados' ;;
    host_key_unreadable) template='no se puede leer la clave de host %1 (--host-key)' ;;
    host_key_not_private) template='%1 no es una clave privada SSH (--host-key)' ;;
    no_proof_no_private_key) template='este usuario no puede leer ninguna clave privada de host SSH (ejecute como root o indique una con --host-key)' ;;
    no_proof_ssh_keygen_missing) template='falta ssh-keygen' ;;
    no_proof_other_key) template='la clave de host %1 no corresponde a la huella enviada (%2)' ;;
    no_proof_no_challenge) template='la comprobación previa no dio ningún desafío (un servicio sin pruebas de máquina)' ;;
    no_proof_cannot_sign) template='ssh-keygen no puede firmar con %1 (ssh-keygen -Y sign requiere OpenSSH 8.1 o posterior): %2' ;;
    proof_required_cannot) template='este servicio exige que las máquinas demuestren su clave de host SSH, y esta no puede: %1' ;;
    going_on_unproven) template='se continúa sin demostrar la clave de host SSH de esta máquina: %1' ;;
    code_id_needs_value) template='--install-code-id necesita el id de un código (ic_…)' ;;
    token_file_needs_path) template='--identity-token-file necesita una ruta' ;;
    identity_needs_token_file) template='--install-code-id necesita un token de identidad: indique --identity-token-file RUTA o defina SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='un token de identidad necesita el id de su código: indique --install-code-id ID o defina SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='indique un código de instalación o --install-code-id con un token de identidad, no ambos' ;;
    install_code_id_invalid) template='%1 no es el id de un código de instalación (ic_ seguido de 16 caracteres hexadecimales en minúscula)' ;;
    identity_token_unreadable) template='no se puede leer el archivo del token de identidad %1 (%2)' ;;
    identity_token_unusable) template='el archivo del token de identidad %1 (%2) no contiene ningún token (un JWT: letras, dígitos, puntos, - y _)' ;;
    precheck_identity) template='el servicio acepta la identidad %1 de esta máquina, emitida por %2' ;;
    code_file_needs_path) template='--code-file necesita una ruta' ;;
    host_key_needs_path) template='--host-key necesita la ruta de una clave privada de host SSH' ;;
    code_file_unreadable) template='no se puede leer el archivo del código de instalación %1 (%2)' ;;
    code_file_open_to_others) template='el archivo del código de instalación %1 (%2) lo pueden leer o escribir otros usuarios (%3): aplíquele chmod 600' ;;
    code_file_other_owner) template='el archivo del código de instalación %1 (%2) pertenece a otro usuario (uid %3): debe ser suyo o de root' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed necesita la comprobación previa en la misma ejecución (use run o indique la dirección)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS debe ser un número entero de segundos, como mínimo 1' ;;
    url_missing) template='defina SLOWDNS_URL con la dirección del servicio de activación, p. ej. https://activation.example.net' ;;
    no_answer_from) template='sin respuesta de %1: %2' ;;
    retry_unavailable) template='el servicio no está disponible; se reintentará dentro de %1 (intento %2 de %3)' ;;
    retry_no_answer) template='sin respuesta; se reintentará dentro de %1 (intento %2 de %3)' ;;
    unexpected_http_answer) template='respuesta HTTP %1 inesperada de %2' ;;
    rate_limit_not_retried) template='Este script no reintenta cuando se alcanza un límite de peticiones: vuelva a ejecutarlo dentro de %1.' ;;
    cloned_image_hint) template='Si esta máquina se clonó a partir de una imagen, su /etc/machine-id y sus claves de host SSH son copias compartidas con los demás clones: dele unos propios (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) y vuelva a ejecutarlo.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='la respuesta de la comprobación previa no trae un precheck_token utilizable' ;;
    precheck_valid) template='el código de instalación %1 es válido para esta máquina (el servicio la ve en %2)' ;;
    precheck_valid_address_unknown) template='el código de instalación %1 es válido para esta máquina (el servicio la ve en una dirección desconocida)' ;;
    address_unconfirmed) template='defina SLOWDNS_HOSTNAME y SLOWDNS_PUBLIC_IP, o ejecute el script en una terminal para confirmarlos' ;;
    prompt_hostname) template='Nombre de host [%1]: ' ;;
    prompt_public_ip) template='IP pública [%1]: ' ;;
    prompt_activate) template='¿Activar %1 (%2)? [s/N] ' ;;
    answer_yes) template='s S sí Sí si Si' ;;
    not_confirmed) template='sin confirmar: no se activó nada' ;;
    hostname_invalid) template='el nombre de host solo puede contener letras, dígitos, puntos y guiones' ;;
    public_ip_invalid) template='la IP pública debe ser una dirección IPv4 o IPv6' ;;
    no_precheck_token) template='no hay ningún token de comprobación previa en %1: haga primero la comprobación previa (precheck)' ;;
    proof_not_accepted) template='el servicio no aceptó la prueba de la clave de host SSH de esta máquina (¿es %1 la dirección pública del propio servicio?): se continúa sin prueba' ;;
    activate_answer_unusable) template='la respuesta de la activación no trae una activación utilizable' ;;
    activated) template='activación %1 realizada para %2 (%3)' ;;
    activated_proven) template='activación %1 realizada para %2 (%3), clave de host SSH demostrada' ;;
    observed_address_differs) template='nota: el servicio vio esta máquina en %1, no en %2 (es normal detrás de un NAT; si no, compruebe que no haya una errata)' ;;
    waiting_for_operator) template='Esperando a que un operador apruebe esta máquina (código %1, comprobación previa %2): en la consola, en %3, o con: %4' ;;
    waiting_for_person) template='Esperando a que la persona que recibió el código %1 apruebe esta máquina en la página de SlowDNS (%2)' ;;
    no_decision_before_expiry) template='no llegó ninguna decisión en la página de SlowDNS antes de que caducara el código de instalación: pida un código nuevo y vuelva a ejecutarlo' ;;
    no_activation_to_confirm) template='no hay ninguna activación en %1: nada que confirmar' ;;
    no_activation_to_release) template='no hay ninguna activación en %1: nada que liberar' ;;
    no_activation_to_read_back) template='no hay ninguna activación en %1: nada que consultar' ;;
    no_activation_to_register) template='no hay ninguna activación en %1: nada que registrar' ;;
    install_token_already_used) template='el token de instalación ya se usó' ;;
    install_confirmed) template='instalación confirmada (%1)' ;;
    released_code_restored) template='activación liberada; el código de instalación se puede volver a usar' ;;
    released_code_not_restored) template='activación liberada; no se pudo restaurar el código de instalación: pida uno nuevo en la página de SlowDNS' ;;
    no_receipt_not_confirmed) template='no hay recibo: la instalación de %1 no está confirmada (estado %2)' ;;
    agent_token_file_missing) template='defina SLOWDNS_AGENT_TOKEN_FILE: dónde guardar el token del agente (solo se muestra una vez)' ;;
    register_answer_unusable) template='la respuesta del registro no trae un agent_token utilizable' ;;
    server_registered) template='servidor registrado como %1; token del agente escrito en %2' ;;
    install_unfinished_releasing) template='la instalación no terminó: se libera la activación' ;;
    release_failed) template='la liberación falló: vuelva a ejecutar activate.sh release (estado: %1)' ;;
    interrupted) template='interrumpido por la señal %1' ;;
    confirmed_with_other_code) template='%1 contiene una instalación ya confirmada con otro código (%2, %3): para instalar de nuevo con este código, asigne a SLOWDNS_STATE_FILE otro archivo (o mueva este a otro sitio)' ;;
    state_activation_unknown) template='el servicio no conoce la activación del archivo de estado; se empieza de nuevo' ;;
    already_confirmed) template='esta instalación ya está confirmada (%1)' ;;
    resuming) template='se reanuda la activación %1' ;;
    state_activation_expired) template='la activación del archivo de estado caducó; se libera y se empieza de nuevo' ;;
    state_activation_released) template='la activación del archivo de estado ya se liberó; se empieza de nuevo' ;;
    setsid_missing) template='run necesita setsid (util-linux o busybox) para dar al comando de instalación un grupo de procesos propio' ;;
    running) template='ejecutando: %1' ;;
    install_command_failed) template='el comando de instalación falló (código de salida %1)' ;;
    already_registered) template='el servidor ya está registrado (su token de agente está en %1)' ;;
    curl_missing) template='se necesita curl' ;;
    count_seconds_one) template='%1 segundo' ;;
    count_seconds_other) template='%1 segundos' ;;
    count_minutes_one) template='%1 minuto' ;;
    count_minutes_other) template='%1 minutos' ;;
    count_hours_one) template='%1 hora' ;;
    count_hours_other) template='%1 horas' ;;
    duration_hours_minutes) template='%1 y %2' ;;
  esac
}

# Russian (на «вы»). Durations follow «через»: the accusative (1 минуту, 2 минуты, 5 минут).
catalog_ru() {
  case "$1" in
    state_value_unexpected) template='неожиданное значение для %1 не сохранено' ;;
    receipt_not_jws) template='квитанция в ответе не является компактным JWS' ;;
    lock_cannot_create) template='не удаётся создать блокировку %1' ;;
    lock_busy) template='другой activate.sh (процесс %1) использует %2: дождитесь его завершения (если такого процесса нет, удалите %3)' ;;
    lock_cannot_take) template='не удаётся захватить блокировку %1' ;;
    lock_taken_over) template='процесс %1 уже завершился: его блокировка переходит к этому запуску' ;;
    lock_lost) template='другой activate.sh захватил блокировку %1' ;;
    orphan_stopping) template='команда установки предыдущего запуска всё ещё работает (группа процессов %1): останавливаем её' ;;
    no_install_code) template='нет кода установки: укажите --code-file ПУТЬ или задайте SLOWDNS_INSTALL_CODE, либо запустите скрипт в терминале' ;;
    prompt_install_code) template='Код установки (со страницы SlowDNS): ' ;;
    install_code_empty) template='код установки пуст' ;;
    machine_id_unreadable) template='не удаётся прочитать %1 (задайте SLOWDNS_MACHINE_ID_FILE)' ;;
    machine_id_invalid) template='в %1 нет идентификатора машины (32 шестнадцатеричных символа в нижнем регистре)' ;;
    host_key_not_found) template='в /etc/ssh не найден ключ хоста SSH (задайте SLOWDNS_SSH_HOST_KEY или SLOWDNS_SSH_FINGERPRINT)' ;;
    ssh_keygen_missing_fingerprint) template='нет ssh-keygen (задайте SLOWDNS_SSH_FINGERPRINT)' ;;
    fingerprint_not_sha256) template='отпечаток SSH не в формате SHA256:… (ssh-keygen -E sha256 -lf <ключ хоста>)' ;;
    fingerprint_unexpected_characters) template='в отпечатке SSH недопустимые символы' ;;
    host_key_unreadable) template='не удаётся прочитать ключ хоста %1 (--host-key)' ;;
    host_key_not_private) template='%1 не является закрытым ключом SSH (--host-key)' ;;
    no_proof_no_private_key) template='нет закрытого ключа хоста SSH, который этот пользователь может прочитать (запустите от root или укажите ключ через --host-key)' ;;
    no_proof_ssh_keygen_missing) template='нет ssh-keygen' ;;
    no_proof_other_key) template='ключ хоста %1 не соответствует отправленному отпечатку (%2)' ;;
    no_proof_no_challenge) template='предварительная проверка не выдала строку для подписи (сервис не проверяет машины)' ;;
    no_proof_cannot_sign) template='ssh-keygen не может подписать ключом %1 (для ssh-keygen -Y sign нужен OpenSSH 8.1 или новее): %2' ;;
    proof_required_cannot) template='этот сервис требует, чтобы машины подтверждали свой ключ хоста SSH, а эта машина не может: %1' ;;
    going_on_unproven) template='продолжаем без подтверждения ключа хоста SSH этой машины: %1' ;;
    code_id_needs_value) template='для --install-code-id нужен id кода (ic_…)' ;;
    token_file_needs_path) template='для --identity-token-file нужен путь к файлу' ;;
    identity_needs_token_file) template='для --install-code-id нужен токен идентичности: укажите --identity-token-file ПУТЬ или задайте SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='для токена идентичности нужен id его кода: укажите --install-code-id ID или задайте SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='укажите либо код установки, либо --install-code-id с токеном идентичности, но не то и другое' ;;
    install_code_id_invalid) template='%1 не является id кода установки (ic_ и 16 шестнадцатеричных символов в нижнем регистре)' ;;
    identity_token_unreadable) template='не удаётся прочитать файл токена идентичности %1 (%2)' ;;
    identity_token_unusable) template='в файле токена идентичности %1 (%2) нет токена (JWT: буквы, цифры, точки, - и _)' ;;
    precheck_identity) template='сервис принимает идентичность этой машины %1, выданную %2' ;;
    code_file_needs_path) template='для --code-file нужен путь к файлу' ;;
    host_key_needs_path) template='для --host-key нужен путь к закрытому ключу хоста SSH' ;;
    code_file_unreadable) template='не удаётся прочитать файл с кодом установки %1 (%2)' ;;
    code_file_open_to_others) template='файл с кодом установки %1 (%2) доступен другим на чтение или запись (%3): выполните для него chmod 600' ;;
    code_file_other_owner) template='файл с кодом установки %1 (%2) принадлежит другому пользователю (uid %3): он должен принадлежать вам или root' ;;
    observed_needs_precheck) template='для SLOWDNS_PUBLIC_IP=observed нужна предварительная проверка в том же запуске (используйте run или укажите адрес)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS должно быть целым числом секунд, не меньше 1' ;;
    url_missing) template='задайте в SLOWDNS_URL адрес сервиса активации, например https://activation.example.net' ;;
    no_answer_from) template='нет ответа от %1: %2' ;;
    retry_unavailable) template='сервис недоступен; повтор через %1 (попытка %2 из %3)' ;;
    retry_no_answer) template='нет ответа; повтор через %1 (попытка %2 из %3)' ;;
    unexpected_http_answer) template='неожиданный ответ HTTP %1 от %2' ;;
    rate_limit_not_retried) template='Этот скрипт не повторяет запрос, отклонённый из-за ограничения частоты: запустите его снова через %1.' ;;
    cloned_image_hint) template='Если эта машина клонирована из образа, её /etc/machine-id и ключи хоста SSH — копии, общие с другими клонами: создайте ей собственные (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) и запустите скрипт снова.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='в ответе предварительной проверки нет пригодного precheck_token' ;;
    precheck_valid) template='код установки %1 действителен для этой машины (сервис видит её по адресу %2)' ;;
    precheck_valid_address_unknown) template='код установки %1 действителен для этой машины (адрес, по которому сервис её видит, неизвестен)' ;;
    address_unconfirmed) template='задайте SLOWDNS_HOSTNAME и SLOWDNS_PUBLIC_IP или запустите скрипт в терминале, чтобы подтвердить их' ;;
    prompt_hostname) template='Имя хоста [%1]: ' ;;
    prompt_public_ip) template='Публичный IP [%1]: ' ;;
    prompt_activate) template='Активировать %1 (%2)? [д/Н] ' ;;
    answer_yes) template='д Д да Да' ;;
    not_confirmed) template='не подтверждено: ничего не активировано' ;;
    hostname_invalid) template='имя хоста может содержать только латинские буквы, цифры, точки и дефисы' ;;
    public_ip_invalid) template='публичный IP должен быть адресом IPv4 или IPv6' ;;
    no_precheck_token) template='в %1 нет токена предварительной проверки: сначала выполните предварительную проверку (precheck)' ;;
    proof_not_accepted) template='сервис не принял подтверждение ключа хоста SSH этой машины (%1 — точно собственный публичный адрес сервиса?): продолжаем без подтверждения' ;;
    activate_answer_unusable) template='в ответе на активацию нет пригодной активации' ;;
    activated) template='активация %1 выполнена для %2 (%3)' ;;
    activated_proven) template='активация %1 выполнена для %2 (%3), ключ хоста SSH подтверждён' ;;
    observed_address_differs) template='примечание: сервис видит эту машину по адресу %1, а не %2 (за NAT это нормально; иначе проверьте, нет ли опечатки)' ;;
    waiting_for_operator) template='Ждём, пока оператор одобрит эту машину (код %1, предварительная проверка %2): в консоли по адресу %3 или командой %4' ;;
    waiting_for_person) template='Ждём, пока человек, получивший код %1, одобрит эту машину на странице SlowDNS (%2)' ;;
    no_decision_before_expiry) template='на странице SlowDNS не приняли решения, пока код установки был действителен: запросите новый код и запустите скрипт снова' ;;
    no_activation_to_confirm) template='в %1 нет активации: подтверждать нечего' ;;
    no_activation_to_release) template='в %1 нет активации: освобождать нечего' ;;
    no_activation_to_read_back) template='в %1 нет активации: проверять нечего' ;;
    no_activation_to_register) template='в %1 нет активации: регистрировать нечего' ;;
    install_token_already_used) template='токен установки уже использован' ;;
    install_confirmed) template='установка подтверждена (%1)' ;;
    released_code_restored) template='активация освобождена; код установки можно использовать снова' ;;
    released_code_not_restored) template='активация освобождена; код установки восстановить не удалось: запросите новый на странице SlowDNS' ;;
    no_receipt_not_confirmed) template='квитанции нет: установка в %1 не подтверждена (состояние %2)' ;;
    agent_token_file_missing) template='задайте SLOWDNS_AGENT_TOKEN_FILE: где хранить токен агента (он показывается только один раз)' ;;
    register_answer_unusable) template='в ответе на регистрацию нет пригодного agent_token' ;;
    server_registered) template='сервер зарегистрирован как %1; токен агента записан в %2' ;;
    install_unfinished_releasing) template='установка не завершилась: освобождаем активацию' ;;
    release_failed) template='освободить активацию не удалось: запустите activate.sh release ещё раз (файл состояния: %1)' ;;
    interrupted) template='прервано сигналом %1' ;;
    confirmed_with_other_code) template='в %1 уже есть установка, подтверждённая другим кодом (%2, %3): чтобы установить заново с этим кодом, укажите в SLOWDNS_STATE_FILE другой файл (или переместите этот)' ;;
    state_activation_unknown) template='сервису неизвестна активация из файла состояния; начинаем заново' ;;
    already_confirmed) template='эта установка уже подтверждена (%1)' ;;
    resuming) template='возобновляем активацию %1' ;;
    state_activation_expired) template='срок активации из файла состояния истёк; освобождаем её и начинаем заново' ;;
    state_activation_released) template='активация из файла состояния уже освобождена; начинаем заново' ;;
    setsid_missing) template='для run нужен setsid (util-linux или busybox): команда установки должна работать в собственной группе процессов' ;;
    running) template='выполняется: %1' ;;
    install_command_failed) template='команда установки завершилась с ошибкой (код выхода %1)' ;;
    already_registered) template='сервер уже зарегистрирован (его токен агента в %1)' ;;
    curl_missing) template='нужен curl' ;;
    count_seconds_one) template='%1 секунду' ;;
    count_minutes_one) template='%1 минуту' ;;
    count_hours_one) template='%1 час' ;;
    duration_hours_minutes) template='%1 %2' ;;
    count_seconds_few) template='%1 секунды' ;;
    count_seconds_many) template='%1 секунд' ;;
    count_minutes_few) template='%1 минуты' ;;
    count_minutes_many) template='%1 минут' ;;
    count_hours_few) template='%1 часа' ;;
    count_hours_many) template='%1 часов' ;;
  esac
}

# Indonesian.
catalog_id() {
  case "$1" in
    state_value_unexpected) template='menolak menyimpan nilai tak terduga untuk %1' ;;
    receipt_not_jws) template='jawaban memuat tanda terima yang bukan JWS ringkas (compact)' ;;
    lock_cannot_create) template='tidak dapat membuat kunci %1' ;;
    lock_busy) template='activate.sh lain (proses %1) sedang memakai %2: tunggu sampai selesai (jika proses itu tidak ada, hapus %3)' ;;
    lock_cannot_take) template='tidak dapat mengambil kunci %1' ;;
    lock_taken_over) template='mengambil alih kunci milik proses %1, yang sudah berakhir' ;;
    lock_lost) template='activate.sh lain telah mengambil kunci %1' ;;
    orphan_stopping) template='perintah instalasi dari eksekusi sebelumnya masih berjalan (grup proses %1): menghentikannya' ;;
    no_install_code) template='tidak ada kode instalasi: berikan --code-file PATH atau atur SLOWDNS_INSTALL_CODE, atau jalankan di terminal' ;;
    prompt_install_code) template='Kode instalasi (dari halaman SlowDNS): ' ;;
    install_code_empty) template='kode instalasi kosong' ;;
    machine_id_unreadable) template='tidak dapat membaca %1 (atur SLOWDNS_MACHINE_ID_FILE)' ;;
    machine_id_invalid) template='%1 tidak berisi ID mesin (32 karakter heksadesimal huruf kecil)' ;;
    host_key_not_found) template='tidak ada kunci host SSH di /etc/ssh (atur SLOWDNS_SSH_HOST_KEY atau SLOWDNS_SSH_FINGERPRINT)' ;;
    ssh_keygen_missing_fingerprint) template='ssh-keygen tidak tersedia (atur SLOWDNS_SSH_FINGERPRINT)' ;;
    fingerprint_not_sha256) template='sidik jari SSH tidak berbentuk SHA256:… (ssh-keygen -E sha256 -lf <kunci host>)' ;;
    fingerprint_unexpected_characters) template='sidik jari SSH berisi karakter yang tidak terduga' ;;
    host_key_unreadable) template='tidak dapat membaca kunci host %1 (--host-key)' ;;
    host_key_not_private) template='%1 bukan kunci privat SSH (--host-key)' ;;
    no_proof_no_private_key) template='tidak ada kunci privat host SSH yang dapat dibaca pengguna ini (jalankan sebagai root, atau sebutkan satu dengan --host-key)' ;;
    no_proof_ssh_keygen_missing) template='ssh-keygen tidak tersedia' ;;
    no_proof_other_key) template='kunci host %1 tidak cocok dengan sidik jari yang dikirim (%2)' ;;
    no_proof_no_challenge) template='pemeriksaan awal tidak memberikan tantangan (layanan tanpa pembuktian mesin)' ;;
    no_proof_cannot_sign) template='ssh-keygen tidak dapat menandatangani dengan %1 (ssh-keygen -Y sign memerlukan OpenSSH 8.1 atau yang lebih baru): %2' ;;
    proof_required_cannot) template='layanan ini mewajibkan mesin membuktikan kunci host SSH-nya, dan mesin ini tidak bisa: %1' ;;
    going_on_unproven) template='melanjutkan tanpa membuktikan kunci host SSH mesin ini: %1' ;;
    code_id_needs_value) template='--install-code-id memerlukan id sebuah kode (ic_…)' ;;
    token_file_needs_path) template='--identity-token-file memerlukan path' ;;
    identity_needs_token_file) template='--install-code-id memerlukan token identitas: berikan --identity-token-file PATH atau atur SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='token identitas memerlukan id kodenya: berikan --install-code-id ID atau atur SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='berikan kode instalasi atau --install-code-id dengan token identitas, bukan keduanya' ;;
    install_code_id_invalid) template='%1 bukan id kode instalasi (ic_ diikuti 16 karakter heksadesimal huruf kecil)' ;;
    identity_token_unreadable) template='tidak dapat membaca berkas token identitas %1 (%2)' ;;
    identity_token_unusable) template='berkas token identitas %1 (%2) tidak berisi token (sebuah JWT: huruf, angka, titik, - dan _)' ;;
    precheck_identity) template='layanan menerima identitas mesin ini %1 dari %2' ;;
    code_file_needs_path) template='--code-file memerlukan path' ;;
    host_key_needs_path) template='--host-key memerlukan path kunci privat host SSH' ;;
    code_file_unreadable) template='tidak dapat membaca berkas kode instalasi %1 (%2)' ;;
    code_file_open_to_others) template='berkas kode instalasi %1 (%2) dapat dibaca atau ditulis pengguna lain (%3): jalankan chmod 600 pada berkas itu' ;;
    code_file_other_owner) template='berkas kode instalasi %1 (%2) milik pengguna lain (uid %3): berkas itu harus milik Anda atau root' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed memerlukan pemeriksaan awal dalam eksekusi yang sama (gunakan run, atau sebutkan alamatnya)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS harus berupa bilangan bulat detik, minimal 1' ;;
    url_missing) template='atur SLOWDNS_URL ke alamat layanan aktivasi, mis. https://activation.example.net' ;;
    no_answer_from) template='tidak ada jawaban dari %1: %2' ;;
    retry_unavailable) template='layanan tidak tersedia; mencoba lagi dalam %1 (percobaan %2 dari %3)' ;;
    retry_no_answer) template='tidak ada jawaban; mencoba lagi dalam %1 (percobaan %2 dari %3)' ;;
    unexpected_http_answer) template='jawaban HTTP %1 yang tidak terduga dari %2' ;;
    rate_limit_not_retried) template='Skrip ini tidak mencoba ulang setelah terkena batas laju permintaan: jalankan lagi dalam %1.' ;;
    cloned_image_hint) template='Jika mesin ini dikloning dari sebuah image, /etc/machine-id dan kunci host SSH-nya adalah salinan yang sama dengan klon lainnya: berikan mesin ini miliknya sendiri (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) lalu jalankan lagi.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='jawaban pemeriksaan awal tidak berisi precheck_token yang dapat dipakai' ;;
    precheck_valid) template='kode instalasi %1 berlaku untuk mesin ini (layanan melihatnya di %2)' ;;
    precheck_valid_address_unknown) template='kode instalasi %1 berlaku untuk mesin ini (layanan melihatnya di alamat yang tidak diketahui)' ;;
    address_unconfirmed) template='atur SLOWDNS_HOSTNAME dan SLOWDNS_PUBLIC_IP, atau jalankan di terminal untuk mengonfirmasinya' ;;
    prompt_hostname) template='Nama host [%1]: ' ;;
    prompt_public_ip) template='IP publik [%1]: ' ;;
    prompt_activate) template='Aktifkan %1 (%2)? [y/N] ' ;;
    answer_yes) template='y Y ya Ya' ;;
    not_confirmed) template='tidak dikonfirmasi: tidak ada yang diaktifkan' ;;
    hostname_invalid) template='nama host hanya boleh berisi huruf, angka, titik, dan tanda hubung' ;;
    public_ip_invalid) template='IP publik harus berupa alamat IPv4 atau IPv6' ;;
    no_precheck_token) template='tidak ada token pemeriksaan awal di %1: jalankan pemeriksaan awal (precheck) terlebih dahulu' ;;
    proof_not_accepted) template='layanan tidak menerima bukti kunci host SSH mesin ini (apakah %1 memang alamat publik layanan itu sendiri?): melanjutkan tanpa bukti' ;;
    activate_answer_unusable) template='jawaban aktivasi tidak berisi aktivasi yang dapat dipakai' ;;
    activated) template='aktivasi %1 dibuat untuk %2 (%3)' ;;
    activated_proven) template='aktivasi %1 dibuat untuk %2 (%3), kunci host SSH terbukti' ;;
    observed_address_differs) template='catatan: layanan melihat mesin ini di %1, bukan %2 (wajar di balik NAT; jika tidak, periksa apakah ada salah ketik)' ;;
    waiting_for_operator) template='Menunggu operator menyetujui mesin ini (kode %1, pemeriksaan awal %2): di konsol %3, atau dengan: %4' ;;
    waiting_for_person) template='Menunggu orang yang menerima kode %1 menyetujui mesin ini di halaman SlowDNS (%2)' ;;
    no_decision_before_expiry) template='tidak ada keputusan di halaman SlowDNS sebelum kode instalasi kedaluwarsa: minta kode baru lalu jalankan lagi' ;;
    no_activation_to_confirm) template='tidak ada aktivasi di %1: tidak ada yang perlu dikonfirmasi' ;;
    no_activation_to_release) template='tidak ada aktivasi di %1: tidak ada yang perlu dilepas' ;;
    no_activation_to_read_back) template='tidak ada aktivasi di %1: tidak ada yang perlu diperiksa' ;;
    no_activation_to_register) template='tidak ada aktivasi di %1: tidak ada yang perlu didaftarkan' ;;
    install_token_already_used) template='token instalasi sudah dipakai' ;;
    install_confirmed) template='instalasi dikonfirmasi (%1)' ;;
    released_code_restored) template='aktivasi dilepas; kode instalasi dapat dipakai lagi' ;;
    released_code_not_restored) template='aktivasi dilepas; kode instalasi tidak dapat dipulihkan: minta kode baru di halaman SlowDNS' ;;
    no_receipt_not_confirmed) template='tidak ada tanda terima: instalasi di %1 belum dikonfirmasi (status %2)' ;;
    agent_token_file_missing) template='atur SLOWDNS_AGENT_TOKEN_FILE: tempat menyimpan token agen (token hanya ditampilkan sekali)' ;;
    register_answer_unusable) template='jawaban pendaftaran tidak berisi agent_token yang dapat dipakai' ;;
    server_registered) template='server terdaftar sebagai %1; token agen ditulis ke %2' ;;
    install_unfinished_releasing) template='instalasi tidak selesai: melepas aktivasi' ;;
    release_failed) template='pelepasan gagal: jalankan lagi activate.sh release (berkas status: %1)' ;;
    interrupted) template='dihentikan oleh sinyal %1' ;;
    confirmed_with_other_code) template='%1 berisi instalasi yang sudah dikonfirmasi dengan kode lain (%2, %3): untuk menginstal lagi dengan kode ini, atur SLOWDNS_STATE_FILE ke berkas lain (atau pindahkan berkas ini)' ;;
    state_activation_unknown) template='aktivasi di berkas status tidak dikenal oleh layanan; memulai dari awal' ;;
    already_confirmed) template='instalasi ini sudah dikonfirmasi (%1)' ;;
    resuming) template='melanjutkan aktivasi %1' ;;
    state_activation_expired) template='aktivasi di berkas status sudah kedaluwarsa; melepasnya dan memulai dari awal' ;;
    state_activation_released) template='aktivasi di berkas status sudah dilepas; memulai dari awal' ;;
    setsid_missing) template='run memerlukan setsid (util-linux atau busybox) agar perintah instalasi punya grup proses sendiri' ;;
    running) template='menjalankan: %1' ;;
    install_command_failed) template='perintah instalasi gagal (kode keluar %1)' ;;
    already_registered) template='server sudah terdaftar (token agennya ada di %1)' ;;
    curl_missing) template='curl diperlukan' ;;
    count_seconds_other) template='%1 detik' ;;
    count_minutes_other) template='%1 menit' ;;
    count_hours_other) template='%1 jam' ;;
    duration_hours_minutes) template='%1 %2' ;;
  esac
}

# Turkish (siz). Written without suffix apostrophes: "%1 dosyası", not "%1’in".
catalog_tr() {
  case "$1" in
    state_value_unexpected) template='%1 için beklenmeyen bir değer kaydedilmiyor' ;;
    receipt_not_jws) template='yanıttaki makbuz kompakt bir JWS değil' ;;
    lock_cannot_create) template='%1 kilidi oluşturulamıyor' ;;
    lock_busy) template='başka bir activate.sh (süreç %1) %2 dosyasını kullanıyor: bitmesini bekleyin (böyle bir süreç çalışmıyorsa %3 dizinini silin)' ;;
    lock_cannot_take) template='%1 kilidi alınamıyor' ;;
    lock_taken_over) template='sona ermiş olan %1 sürecinin kilidi devralınıyor' ;;
    lock_lost) template='başka bir activate.sh %1 kilidini aldı' ;;
    orphan_stopping) template='önceki bir çalıştırmanın kurulum komutu hâlâ çalışıyor (süreç grubu %1): durduruluyor' ;;
    no_install_code) template='kurulum kodu yok: --code-file YOL verin ya da SLOWDNS_INSTALL_CODE değişkenini ayarlayın veya betiği bir terminalde çalıştırın' ;;
    prompt_install_code) template='Kurulum kodu (SlowDNS sayfasından): ' ;;
    install_code_empty) template='kurulum kodu boş' ;;
    machine_id_unreadable) template='%1 okunamıyor (SLOWDNS_MACHINE_ID_FILE değişkenini ayarlayın)' ;;
    machine_id_invalid) template='%1 bir makine kimliği içermiyor (32 küçük harfli onaltılık karakter olmalı)' ;;
    host_key_not_found) template='/etc/ssh içinde SSH sunucu anahtarı bulunamadı (SLOWDNS_SSH_HOST_KEY veya SLOWDNS_SSH_FINGERPRINT değişkenini ayarlayın)' ;;
    ssh_keygen_missing_fingerprint) template='ssh-keygen bulunamadı (SLOWDNS_SSH_FINGERPRINT değişkenini ayarlayın)' ;;
    fingerprint_not_sha256) template='SSH parmak izi SHA256:… biçiminde değil (ssh-keygen -E sha256 -lf <sunucu anahtarı>)' ;;
    fingerprint_unexpected_characters) template='SSH parmak izinde beklenmeyen karakterler var' ;;
    host_key_unreadable) template='%1 sunucu anahtarı okunamıyor (--host-key)' ;;
    host_key_not_private) template='%1 bir SSH özel anahtarı değil (--host-key)' ;;
    no_proof_no_private_key) template='bu kullanıcının okuyabildiği bir SSH sunucu özel anahtarı yok (root olarak çalıştırın veya --host-key ile bir anahtar belirtin)' ;;
    no_proof_ssh_keygen_missing) template='ssh-keygen bulunamadı' ;;
    no_proof_other_key) template='%1 sunucu anahtarı gönderilen parmak izine (%2) ait değil' ;;
    no_proof_no_challenge) template='ön denetim imzalanacak bir sınama değeri vermedi (makine kanıtı kullanmayan bir hizmet)' ;;
    no_proof_cannot_sign) template='ssh-keygen %1 ile imzalayamıyor (ssh-keygen -Y sign için OpenSSH 8.1 veya üstü gerekir): %2' ;;
    proof_required_cannot) template='bu hizmet makinelerin SSH sunucu anahtarlarını kanıtlamasını istiyor, bu makine ise kanıtlayamıyor: %1' ;;
    going_on_unproven) template='bu makinenin SSH sunucu anahtarı kanıtlanmadan devam ediliyor: %1' ;;
    code_id_needs_value) template='--install-code-id bir kodun kimliğini ister (ic_…)' ;;
    token_file_needs_path) template='--identity-token-file bir dosya yolu ister' ;;
    identity_needs_token_file) template='--install-code-id bir kimlik belirteci ister: --identity-token-file YOL verin ya da SLOWDNS_IDENTITY_TOKEN_FILE değişkenini ayarlayın' ;;
    identity_needs_code_id) template='bir kimlik belirteci kodunun kimliğini ister: --install-code-id KİMLİK verin ya da SLOWDNS_INSTALL_CODE_ID değişkenini ayarlayın' ;;
    code_and_code_id) template='ya bir kurulum kodu ya da kimlik belirteciyle birlikte --install-code-id verin, ikisini birden değil' ;;
    install_code_id_invalid) template='%1 bir kurulum kodunun kimliği değil (ic_ ve ardından 16 küçük harfli onaltılık karakter)' ;;
    identity_token_unreadable) template='%1 kimlik belirteci dosyası okunamıyor (%2)' ;;
    identity_token_unusable) template='%1 kimlik belirteci dosyasında (%2) belirteç yok (bir JWT: harfler, rakamlar, noktalar, - ve _)' ;;
    precheck_identity) template='hizmet bu makinenin %1 kimliğini kabul ediyor (veren: %2)' ;;
    code_file_needs_path) template='--code-file bir dosya yolu ister' ;;
    host_key_needs_path) template='--host-key bir SSH sunucu özel anahtarının yolunu ister' ;;
    code_file_unreadable) template='kurulum kodu dosyası %1 okunamıyor (%2)' ;;
    code_file_open_to_others) template='kurulum kodu dosyası %1 (%2) başkalarınca okunabilir veya yazılabilir (%3): dosyaya chmod 600 uygulayın' ;;
    code_file_other_owner) template='kurulum kodu dosyası %1 (%2) başka bir kullanıcıya ait (uid %3): sizin ya da root kullanıcısının olmalı' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed aynı çalıştırmada bir ön denetim ister (run kullanın veya adresi yazın)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS, saniye cinsinden en az 1 olan bir tam sayı olmalı' ;;
    url_missing) template='SLOWDNS_URL değişkenini etkinleştirme hizmetinin adresine ayarlayın, ör. https://activation.example.net' ;;
    no_answer_from) template='%1 yanıt vermiyor: %2' ;;
    retry_unavailable) template='hizmet kullanılamıyor; %1 sonra yeniden denenecek (deneme %2/%3)' ;;
    retry_no_answer) template='yanıt yok; %1 sonra yeniden denenecek (deneme %2/%3)' ;;
    unexpected_http_answer) template='%2 adresinden beklenmeyen HTTP %1 yanıtı' ;;
    rate_limit_not_retried) template='Bu betik istek sınırına takıldığında yeniden denemez: %1 sonra yeniden çalıştırın.' ;;
    cloned_image_hint) template='Bu makine bir kalıptan klonlandıysa /etc/machine-id dosyası ve SSH sunucu anahtarları diğer klonlarla paylaşılan kopyalardır: makineye kendine ait olanları verin (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) ve yeniden çalıştırın.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='ön denetim yanıtında kullanılabilir bir precheck_token yok' ;;
    precheck_valid) template='%1 kurulum kodu bu makine için geçerli (hizmet makineyi %2 adresinde görüyor)' ;;
    precheck_valid_address_unknown) template='%1 kurulum kodu bu makine için geçerli (hizmetin makineyi gördüğü adres bilinmiyor)' ;;
    address_unconfirmed) template='SLOWDNS_HOSTNAME ve SLOWDNS_PUBLIC_IP değişkenlerini ayarlayın ya da bunları onaylamak için betiği bir terminalde çalıştırın' ;;
    prompt_hostname) template='Ana makine adı [%1]: ' ;;
    prompt_public_ip) template='Genel IP [%1]: ' ;;
    prompt_activate) template='%1 (%2) etkinleştirilsin mi? [e/H] ' ;;
    answer_yes) template='e E evet Evet' ;;
    not_confirmed) template='onaylanmadı: hiçbir şey etkinleştirilmedi' ;;
    hostname_invalid) template='ana makine adı yalnızca harf, rakam, nokta ve kısa çizgi içerebilir' ;;
    public_ip_invalid) template='genel IP bir IPv4 veya IPv6 adresi olmalı' ;;
    no_precheck_token) template='%1 içinde ön denetim belirteci yok: önce ön denetimi (precheck) çalıştırın' ;;
    proof_not_accepted) template='hizmet bu makinenin SSH sunucu anahtarı kanıtını kabul etmedi (%1 hizmetin kendi genel adresi mi?): kanıtsız devam ediliyor' ;;
    activate_answer_unusable) template='etkinleştirme yanıtında kullanılabilir bir etkinleştirme yok' ;;
    activated) template='%2 (%3) için %1 etkinleştirmesi yapıldı' ;;
    activated_proven) template='%2 (%3) için %1 etkinleştirmesi yapıldı, SSH sunucu anahtarı kanıtlandı' ;;
    observed_address_differs) template='not: hizmet bu makineyi %2 adresinde değil, %1 adresinde gördü (NAT arkasında olağandır; değilse yazım hatası olup olmadığına bakın)' ;;
    waiting_for_operator) template='Bir operatörün bu makineyi onaylaması bekleniyor (kod %1, ön denetim %2): %3 adresindeki konsoldan veya şu komutla: %4' ;;
    waiting_for_person) template='%1 kodunu alan kişinin bu makineyi SlowDNS sayfasında onaylaması bekleniyor (%2)' ;;
    no_decision_before_expiry) template='kurulum kodunun süresi dolmadan SlowDNS sayfasında karar verilmedi: yeni bir kod isteyip yeniden çalıştırın' ;;
    no_activation_to_confirm) template='%1 içinde etkinleştirme yok: onaylanacak bir şey yok' ;;
    no_activation_to_release) template='%1 içinde etkinleştirme yok: serbest bırakılacak bir şey yok' ;;
    no_activation_to_read_back) template='%1 içinde etkinleştirme yok: sorgulanacak bir şey yok' ;;
    no_activation_to_register) template='%1 içinde etkinleştirme yok: kaydedilecek bir şey yok' ;;
    install_token_already_used) template='kurulum belirteci zaten kullanılmış' ;;
    install_confirmed) template='kurulum onaylandı (%1)' ;;
    released_code_restored) template='etkinleştirme serbest bırakıldı; kurulum kodu yeniden kullanılabilir' ;;
    released_code_not_restored) template='etkinleştirme serbest bırakıldı; kurulum kodu geri alınamadı: SlowDNS sayfasından yeni bir kod isteyin' ;;
    no_receipt_not_confirmed) template='makbuz yok: %1 içindeki kurulum onaylanmamış (durum: %2)' ;;
    agent_token_file_missing) template='SLOWDNS_AGENT_TOKEN_FILE değişkenini ayarlayın: ajan belirtecinin saklanacağı yer (belirteç yalnızca bir kez gösterilir)' ;;
    register_answer_unusable) template='kayıt yanıtında kullanılabilir bir agent_token yok' ;;
    server_registered) template='sunucu %1 olarak kaydedildi; ajan belirteci %2 dosyasına yazıldı' ;;
    install_unfinished_releasing) template='kurulum bitmedi: etkinleştirme serbest bırakılıyor' ;;
    release_failed) template='serbest bırakma başarısız: activate.sh release komutunu yeniden çalıştırın (durum dosyası: %1)' ;;
    interrupted) template='%1 sinyaliyle kesildi' ;;
    confirmed_with_other_code) template='%1 başka bir kodla (%2, %3) zaten onaylanmış bir kurulum içeriyor: bu kodla yeniden kurmak için SLOWDNS_STATE_FILE değişkenini başka bir dosyaya ayarlayın (veya bu dosyayı başka yere taşıyın)' ;;
    state_activation_unknown) template='durum dosyasındaki etkinleştirme hizmette bilinmiyor; baştan başlanıyor' ;;
    already_confirmed) template='bu kurulum zaten onaylanmış (%1)' ;;
    resuming) template='%1 etkinleştirmesi sürdürülüyor' ;;
    state_activation_expired) template='durum dosyasındaki etkinleştirmenin süresi dolmuş; serbest bırakılıp baştan başlanıyor' ;;
    state_activation_released) template='durum dosyasındaki etkinleştirme serbest bırakılmış; baştan başlanıyor' ;;
    setsid_missing) template='run, kurulum komutuna kendi süreç grubunu vermek için setsid ister (util-linux veya busybox)' ;;
    running) template='çalıştırılıyor: %1' ;;
    install_command_failed) template='kurulum komutu başarısız oldu (çıkış kodu %1)' ;;
    already_registered) template='sunucu zaten kayıtlı (ajan belirteci %1 dosyasında)' ;;
    curl_missing) template='curl gerekli' ;;
    count_seconds_one) template='%1 saniye' ;;
    count_seconds_other) template='%1 saniye' ;;
    count_minutes_one) template='%1 dakika' ;;
    count_minutes_other) template='%1 dakika' ;;
    count_hours_one) template='%1 saat' ;;
    count_hours_other) template='%1 saat' ;;
    duration_hours_minutes) template='%1 %2' ;;
  esac
}

# Simplified Chinese (zh-Hans: zh, zh_CN, zh_SG).
catalog_zh_Hans() {
  case "$1" in
    state_value_unexpected) template='拒绝为 %1 保存意外的值' ;;
    receipt_not_jws) template='应答中的回执不是紧凑格式的 JWS' ;;
    lock_cannot_create) template='无法创建锁 %1' ;;
    lock_busy) template='另一个 activate.sh（进程 %1）正在使用 %2：请等它结束（若该进程已不存在，请删除 %3）' ;;
    lock_cannot_take) template='无法获取锁 %1' ;;
    lock_taken_over) template='进程 %1 已结束，接管它的锁' ;;
    lock_lost) template='另一个 activate.sh 抢先取得了锁 %1' ;;
    orphan_stopping) template='上一次运行的安装命令仍在运行（进程组 %1）：正在停止它' ;;
    no_install_code) template='没有安装码：请用 --code-file 路径 指定，或设置 SLOWDNS_INSTALL_CODE，或在终端中运行' ;;
    prompt_install_code) template='安装码（来自 SlowDNS 页面）：' ;;
    install_code_empty) template='安装码为空' ;;
    machine_id_unreadable) template='无法读取 %1（请设置 SLOWDNS_MACHINE_ID_FILE）' ;;
    machine_id_invalid) template='%1 中没有机器 ID（应为 32 个小写十六进制字符）' ;;
    host_key_not_found) template='在 /etc/ssh 中找不到 SSH 主机密钥（请设置 SLOWDNS_SSH_HOST_KEY 或 SLOWDNS_SSH_FINGERPRINT）' ;;
    ssh_keygen_missing_fingerprint) template='缺少 ssh-keygen（请设置 SLOWDNS_SSH_FINGERPRINT）' ;;
    fingerprint_not_sha256) template='SSH 指纹不是 SHA256:… 格式（ssh-keygen -E sha256 -lf <主机密钥>）' ;;
    fingerprint_unexpected_characters) template='SSH 指纹中含有意外的字符' ;;
    host_key_unreadable) template='无法读取主机密钥 %1（--host-key）' ;;
    host_key_not_private) template='%1 不是 SSH 私钥（--host-key）' ;;
    no_proof_no_private_key) template='没有当前用户能读取的 SSH 主机私钥（请以 root 身份运行，或用 --host-key 指定一个）' ;;
    no_proof_ssh_keygen_missing) template='缺少 ssh-keygen' ;;
    no_proof_other_key) template='主机密钥 %1 与发送的指纹（%2）不符' ;;
    no_proof_no_challenge) template='预检没有给出质询（该服务不使用机器证明）' ;;
    no_proof_cannot_sign) template='ssh-keygen 无法用 %1 签名（ssh-keygen -Y sign 需要 OpenSSH 8.1 或更高版本）：%2' ;;
    proof_required_cannot) template='此服务要求机器证明自己的 SSH 主机密钥，而本机无法证明：%1' ;;
    going_on_unproven) template='继续进行，但未证明本机的 SSH 主机密钥：%1' ;;
    code_id_needs_value) template='--install-code-id 需要一个安装码的 id（ic_…）' ;;
    token_file_needs_path) template='--identity-token-file 需要一个路径' ;;
    identity_needs_token_file) template='--install-code-id 需要身份令牌：请用 --identity-token-file 路径 指定，或设置 SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='身份令牌需要其安装码的 id：请用 --install-code-id ID 指定，或设置 SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='请给出安装码，或给出 --install-code-id 及身份令牌，不能两者都给' ;;
    install_code_id_invalid) template='%1 不是安装码的 id（ic_ 后跟 16 个小写十六进制字符）' ;;
    identity_token_unreadable) template='无法读取身份令牌文件 %1（%2）' ;;
    identity_token_unusable) template='身份令牌文件 %1（%2）中没有令牌（JWT：字母、数字、点、- 和 _）' ;;
    precheck_identity) template='服务接受本机的身份 %1（由 %2 签发）' ;;
    code_file_needs_path) template='--code-file 需要一个路径' ;;
    host_key_needs_path) template='--host-key 需要一个 SSH 主机私钥的路径' ;;
    code_file_unreadable) template='无法读取安装码文件 %1（%2）' ;;
    code_file_open_to_others) template='安装码文件 %1（%2）可被他人读取或写入（%3）：请对它执行 chmod 600' ;;
    code_file_other_owner) template='安装码文件 %1（%2）属于另一个用户（uid %3）：它必须属于你或 root' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed 需要在同一次运行中先做预检（请使用 run，或直接写出地址）' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS 必须是整数秒，且至少为 1' ;;
    url_missing) template='请把 SLOWDNS_URL 设为激活服务的地址，例如 https://activation.example.net' ;;
    no_answer_from) template='%1 没有应答：%2' ;;
    retry_unavailable) template='服务不可用；%1后重试（第 %2 次，共 %3 次）' ;;
    retry_no_answer) template='没有应答；%1后重试（第 %2 次，共 %3 次）' ;;
    unexpected_http_answer) template='来自 %2 的意外 HTTP %1 应答' ;;
    rate_limit_not_retried) template='本脚本遇到频率限制时不会重试：请在 %1后再次运行。' ;;
    cloned_image_hint) template='如果本机是从镜像克隆的，它的 /etc/machine-id 和 SSH 主机密钥就是与其他克隆机共用的副本：请为它生成自己的（rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A），然后重新运行。' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='预检应答中没有可用的 precheck_token' ;;
    precheck_valid) template='安装码 %1 对本机有效（服务看到的本机地址是 %2）' ;;
    precheck_valid_address_unknown) template='安装码 %1 对本机有效（服务看到的本机地址未知）' ;;
    address_unconfirmed) template='请设置 SLOWDNS_HOSTNAME 和 SLOWDNS_PUBLIC_IP，或在终端中运行以确认它们' ;;
    prompt_hostname) template='主机名 [%1]：' ;;
    prompt_public_ip) template='公网 IP [%1]：' ;;
    prompt_activate) template='要激活 %1（%2）吗？[y/N] ' ;;
    answer_yes) template='是 是的' ;;
    not_confirmed) template='未确认：没有激活任何内容' ;;
    hostname_invalid) template='主机名只能包含字母、数字、点和连字符' ;;
    public_ip_invalid) template='公网 IP 必须是 IPv4 或 IPv6 地址' ;;
    no_precheck_token) template='%1 中没有预检令牌：请先运行预检（precheck）' ;;
    proof_not_accepted) template='服务没有接受本机的 SSH 主机密钥证明（%1 是服务自己的公网地址吗？）：继续进行，不作证明' ;;
    activate_answer_unusable) template='激活应答中没有可用的激活信息' ;;
    activated) template='已为 %2（%3）完成激活 %1' ;;
    activated_proven) template='已为 %2（%3）完成激活 %1，SSH 主机密钥已证明' ;;
    observed_address_differs) template='注意：服务看到的本机地址是 %1，而不是 %2（在 NAT 之后属于正常；否则请检查是否输错）' ;;
    waiting_for_operator) template='正在等待管理员批准本机（安装码 %1，预检 %2）：可在控制台 %3 中操作，或使用命令：%4' ;;
    waiting_for_person) template='正在等待获得安装码 %1 的人在 SlowDNS 页面上批准本机（%2）' ;;
    no_decision_before_expiry) template='安装码过期前，SlowDNS 页面上没有人作出决定：请申请新的安装码后重新运行' ;;
    no_activation_to_confirm) template='%1 中没有激活记录：没有可确认的内容' ;;
    no_activation_to_release) template='%1 中没有激活记录：没有可释放的内容' ;;
    no_activation_to_read_back) template='%1 中没有激活记录：没有可查询的内容' ;;
    no_activation_to_register) template='%1 中没有激活记录：没有可注册的内容' ;;
    install_token_already_used) template='安装令牌已被使用' ;;
    install_confirmed) template='安装已确认（%1）' ;;
    released_code_restored) template='激活已释放；安装码可以再次使用' ;;
    released_code_not_restored) template='激活已释放；安装码未能恢复：请在 SlowDNS 页面上申请新的安装码' ;;
    no_receipt_not_confirmed) template='没有回执：%1 中的安装尚未确认（状态为 %2）' ;;
    agent_token_file_missing) template='请设置 SLOWDNS_AGENT_TOKEN_FILE：代理令牌的保存位置（令牌只显示一次）' ;;
    register_answer_unusable) template='注册应答中没有可用的 agent_token' ;;
    server_registered) template='服务器已注册为 %1；代理令牌已写入 %2' ;;
    install_unfinished_releasing) template='安装没有完成：正在释放激活' ;;
    release_failed) template='释放失败：请再次运行 activate.sh release（状态文件：%1）' ;;
    interrupted) template='被信号 %1 中断' ;;
    confirmed_with_other_code) template='%1 中已有一个用另一个安装码（%2，%3）确认的安装：若要用此安装码重新安装，请把 SLOWDNS_STATE_FILE 设为另一个文件（或移走此文件）' ;;
    state_activation_unknown) template='服务不认识状态文件中的激活；重新开始' ;;
    already_confirmed) template='此安装已经确认（%1）' ;;
    resuming) template='继续激活 %1' ;;
    state_activation_expired) template='状态文件中的激活已过期；释放它并重新开始' ;;
    state_activation_released) template='状态文件中的激活已被释放；重新开始' ;;
    setsid_missing) template='run 需要 setsid（util-linux 或 busybox）来为安装命令创建独立的进程组' ;;
    running) template='正在运行：%1' ;;
    install_command_failed) template='安装命令失败（退出码 %1）' ;;
    already_registered) template='服务器已经注册（其代理令牌在 %1 中）' ;;
    curl_missing) template='需要 curl' ;;
    count_seconds_other) template='%1 秒' ;;
    count_minutes_other) template='%1 分钟' ;;
    count_hours_other) template='%1 小时' ;;
    duration_hours_minutes) template='%1 %2' ;;
  esac
}

# Persian (شما). Said only where no terminal shows it (choose_language); holds ZWNJ (U+200C), as Persian needs.
catalog_fa() {
  case "$1" in
    state_value_unexpected) template='مقداری نامنتظره برای %1 ذخیره نمی‌شود' ;;
    receipt_not_jws) template='رسید موجود در پاسخ یک JWS فشرده نیست' ;;
    lock_cannot_create) template='نمی‌توان قفل %1 را ساخت' ;;
    lock_busy) template='یک activate.sh دیگر (فرایند %1) در حال استفاده از %2 است: صبر کنید تا تمام شود (اگر چنین فرایندی در کار نیست، %3 را پاک کنید)' ;;
    lock_cannot_take) template='نمی‌توان قفل %1 را گرفت' ;;
    lock_taken_over) template='قفل فرایند %1 که به پایان رسیده است در اختیار گرفته می‌شود' ;;
    lock_lost) template='یک activate.sh دیگر قفل %1 را گرفت' ;;
    orphan_stopping) template='فرمان نصبِ یک اجرای قبلی هنوز در حال اجراست (گروه فرایند %1): متوقف می‌شود' ;;
    no_install_code) template='کد نصب داده نشده است: --code-file PATH را بدهید یا SLOWDNS_INSTALL_CODE را تنظیم کنید، یا اسکریپت را در یک ترمینال اجرا کنید' ;;
    prompt_install_code) template='کد نصب (از صفحهٔ SlowDNS): ' ;;
    install_code_empty) template='کد نصب خالی است' ;;
    machine_id_unreadable) template='نمی‌توان %1 را خواند (SLOWDNS_MACHINE_ID_FILE را تنظیم کنید)' ;;
    machine_id_invalid) template='%1 شناسهٔ ماشین را در بر ندارد (۳۲ نویسهٔ هگزادسیمال با حروف کوچک)' ;;
    host_key_not_found) template='هیچ کلید میزبان SSH در /etc/ssh پیدا نشد (SLOWDNS_SSH_HOST_KEY یا SLOWDNS_SSH_FINGERPRINT را تنظیم کنید)' ;;
    ssh_keygen_missing_fingerprint) template='ssh-keygen نصب نیست (SLOWDNS_SSH_FINGERPRINT را تنظیم کنید)' ;;
    fingerprint_not_sha256) template='اثر انگشت SSH به شکل SHA256:… نیست (ssh-keygen -E sha256 -lf <کلید میزبان>)' ;;
    fingerprint_unexpected_characters) template='اثر انگشت SSH نویسه‌های نامنتظره دارد' ;;
    host_key_unreadable) template='نمی‌توان کلید میزبان %1 را خواند (--host-key)' ;;
    host_key_not_private) template='%1 کلید خصوصی SSH نیست (--host-key)' ;;
    no_proof_no_private_key) template='هیچ کلید خصوصی میزبان SSH که این کاربر بتواند بخواند وجود ندارد (با root اجرا کنید یا با --host-key یکی را مشخص کنید)' ;;
    no_proof_ssh_keygen_missing) template='ssh-keygen نصب نیست' ;;
    no_proof_other_key) template='کلید میزبان %1 با اثر انگشت ارسال‌شده (%2) جور نیست' ;;
    no_proof_no_challenge) template='پیش‌بررسی هیچ چالشی برای امضا نداد (سرویسی که اثبات ماشین ندارد)' ;;
    no_proof_cannot_sign) template='ssh-keygen نمی‌تواند با %1 امضا کند (ssh-keygen -Y sign به OpenSSH 8.1 یا جدیدتر نیاز دارد): %2' ;;
    proof_required_cannot) template='این سرویس از ماشین‌ها می‌خواهد کلید میزبان SSH خود را اثبات کنند و این ماشین نمی‌تواند: %1' ;;
    going_on_unproven) template='ادامه بدون اثبات کلید میزبان SSH این ماشین: %1' ;;
    code_id_needs_value) template='--install-code-id به شناسهٔ یک کد نیاز دارد (ic_…)' ;;
    token_file_needs_path) template='--identity-token-file به یک مسیر نیاز دارد' ;;
    identity_needs_token_file) template='--install-code-id به توکن هویت نیاز دارد: --identity-token-file PATH را بدهید یا SLOWDNS_IDENTITY_TOKEN_FILE را تنظیم کنید' ;;
    identity_needs_code_id) template='توکن هویت به شناسهٔ کد خود نیاز دارد: --install-code-id ID را بدهید یا SLOWDNS_INSTALL_CODE_ID را تنظیم کنید' ;;
    code_and_code_id) template='یا کد نصب بدهید یا --install-code-id همراه با توکن هویت، نه هر دو' ;;
    install_code_id_invalid) template='%1 شناسهٔ یک کد نصب نیست (ic_ و پس از آن ۱۶ نویسهٔ هگزادسیمال کوچک)' ;;
    identity_token_unreadable) template='نمی‌توان فایل توکن هویت %1 را خواند (%2)' ;;
    identity_token_unusable) template='فایل توکن هویت %1 (%2) توکنی ندارد (یک JWT: حروف، رقم‌ها، نقطه‌ها، - و _)' ;;
    precheck_identity) template='سرویس هویت %1 این ماشین را که %2 صادر کرده است می‌پذیرد' ;;
    code_file_needs_path) template='--code-file به یک مسیر نیاز دارد' ;;
    host_key_needs_path) template='--host-key به مسیر یک کلید خصوصی میزبان SSH نیاز دارد' ;;
    code_file_unreadable) template='نمی‌توان فایل کد نصب %1 را خواند (%2)' ;;
    code_file_open_to_others) template='دیگران می‌توانند فایل کد نصب %1 (%2) را بخوانند یا در آن بنویسند (%3): با chmod 600 دسترسی را ببندید' ;;
    code_file_other_owner) template='فایل کد نصب %1 (%2) مال کاربر دیگری است (uid %3): باید مال شما یا root باشد' ;;
    observed_needs_precheck) template='SLOWDNS_PUBLIC_IP=observed به پیش‌بررسی در همان اجرا نیاز دارد (از run استفاده کنید یا نشانی را بنویسید)' ;;
    max_wait_invalid) template='SLOWDNS_MAX_WAIT_SECONDS باید تعداد صحیحی ثانیه و دست‌کم ۱ باشد' ;;
    url_missing) template='SLOWDNS_URL را روی نشانی سرویس فعال‌سازی تنظیم کنید، مثلاً https://activation.example.net' ;;
    no_answer_from) template='پاسخی از %1 نیامد: %2' ;;
    retry_unavailable) template='سرویس در دسترس نیست؛ تلاش دوباره تا %1 دیگر (تلاش %2 از %3)' ;;
    retry_no_answer) template='پاسخی نیامد؛ تلاش دوباره تا %1 دیگر (تلاش %2 از %3)' ;;
    unexpected_http_answer) template='پاسخ HTTP %1 نامنتظره از %2' ;;
    rate_limit_not_retried) template='این اسکریپت پس از رسیدن به محدودیت تعداد درخواست دوباره تلاش نمی‌کند: %1 دیگر دوباره اجرایش کنید.' ;;
    cloned_image_hint) template='اگر این ماشین از یک ایمیج کلون شده است، /etc/machine-id و کلیدهای میزبان SSH آن رونوشت‌هایی مشترک با دیگر کلون‌ها هستند: به آن شناسه و کلیدهای خودش را بدهید (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) و دوباره اجرا کنید.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='پاسخ پیش‌بررسی precheck_token قابل‌استفاده‌ای ندارد' ;;
    precheck_valid) template='کد نصب %1 برای این ماشین معتبر است (سرویس آن را در %2 می‌بیند)' ;;
    precheck_valid_address_unknown) template='کد نصب %1 برای این ماشین معتبر است (سرویس آن را در نشانی نامعلومی می‌بیند)' ;;
    address_unconfirmed) template='SLOWDNS_HOSTNAME و SLOWDNS_PUBLIC_IP را تنظیم کنید، یا برای تأییدشان اسکریپت را در یک ترمینال اجرا کنید' ;;
    prompt_hostname) template='نام میزبان [%1]: ' ;;
    prompt_public_ip) template='IP عمومی [%1]: ' ;;
    prompt_activate) template='%1 (%2) فعال شود؟ [y/N] ' ;;
    answer_yes) template='بله آره' ;;
    not_confirmed) template='تأیید نشد: چیزی فعال نشد' ;;
    hostname_invalid) template='نام میزبان فقط می‌تواند حرف، رقم، نقطه و خط تیره داشته باشد' ;;
    public_ip_invalid) template='IP عمومی باید یک نشانی IPv4 یا IPv6 باشد' ;;
    no_precheck_token) template='در %1 توکن پیش‌بررسی نیست: نخست پیش‌بررسی (precheck) را اجرا کنید' ;;
    proof_not_accepted) template='سرویس اثبات کلید میزبان SSH این ماشین را نپذیرفت (آیا %1 نشانی عمومی خود سرویس است؟): ادامه بدون اثبات' ;;
    activate_answer_unusable) template='پاسخ فعال‌سازی هیچ فعال‌سازی قابل‌استفاده‌ای در بر ندارد' ;;
    activated) template='فعال‌سازی %1 برای %2 (%3) انجام شد' ;;
    activated_proven) template='فعال‌سازی %1 برای %2 (%3) انجام شد؛ کلید میزبان SSH اثبات شد' ;;
    observed_address_differs) template='توجه: سرویس این ماشین را در %1 دید، نه در %2 (پشت NAT عادی است؛ وگرنه ببینید اشتباه تایپی نباشد)' ;;
    waiting_for_operator) template='در انتظار تأیید این ماشین از سوی یک اپراتور (کد %1، پیش‌بررسی %2): در کنسول %3، یا با فرمان: %4' ;;
    waiting_for_person) template='در انتظار آنکه کسی که کد %1 را گرفته است این ماشین را در صفحهٔ SlowDNS تأیید کند (%2)' ;;
    no_decision_before_expiry) template='پیش از منقضی شدن کد نصب، در صفحهٔ SlowDNS تصمیمی گرفته نشد: کد تازه‌ای بخواهید و دوباره اجرا کنید' ;;
    no_activation_to_confirm) template='در %1 فعال‌سازی‌ای نیست: چیزی برای تأیید نیست' ;;
    no_activation_to_release) template='در %1 فعال‌سازی‌ای نیست: چیزی برای آزادسازی نیست' ;;
    no_activation_to_read_back) template='در %1 فعال‌سازی‌ای نیست: چیزی برای بازخوانی نیست' ;;
    no_activation_to_register) template='در %1 فعال‌سازی‌ای نیست: چیزی برای ثبت نیست' ;;
    install_token_already_used) template='توکن نصب پیش‌تر به کار رفته است' ;;
    install_confirmed) template='نصب تأیید شد (%1)' ;;
    released_code_restored) template='فعال‌سازی آزاد شد؛ کد نصب دوباره قابل استفاده است' ;;
    released_code_not_restored) template='فعال‌سازی آزاد شد؛ کد نصب بازگردانده نشد: در صفحهٔ SlowDNS کد تازه‌ای بخواهید' ;;
    no_receipt_not_confirmed) template='رسیدی در کار نیست: نصبِ ثبت‌شده در %1 تأیید نشده است (وضعیت %2)' ;;
    agent_token_file_missing) template='SLOWDNS_AGENT_TOKEN_FILE را تنظیم کنید: جای نگهداری توکن عامل (فقط یک بار نشان داده می‌شود)' ;;
    register_answer_unusable) template='پاسخ ثبت agent_token قابل‌استفاده‌ای ندارد' ;;
    server_registered) template='سرور با شناسهٔ %1 ثبت شد؛ توکن عامل در %2 نوشته شد' ;;
    install_unfinished_releasing) template='نصب تمام نشد: فعال‌سازی آزاد می‌شود' ;;
    release_failed) template='آزادسازی ناموفق بود: activate.sh release را دوباره اجرا کنید (فایل وضعیت: %1)' ;;
    interrupted) template='با سیگنال %1 متوقف شد' ;;
    confirmed_with_other_code) template='%1 نصبی را در بر دارد که پیش‌تر با کد دیگری (%2، %3) تأیید شده است: برای نصب دوباره با این کد، SLOWDNS_STATE_FILE را روی فایل دیگری تنظیم کنید (یا این فایل را جابه‌جا کنید)' ;;
    state_activation_unknown) template='فعال‌سازی ثبت‌شده در فایل وضعیت برای سرویس ناشناخته است؛ از نو شروع می‌کنیم' ;;
    already_confirmed) template='این نصب پیش‌تر تأیید شده است (%1)' ;;
    resuming) template='ادامهٔ فعال‌سازی %1' ;;
    state_activation_expired) template='فعال‌سازی ثبت‌شده در فایل وضعیت منقضی شده است؛ آزادش می‌کنیم و از نو شروع می‌کنیم' ;;
    state_activation_released) template='فعال‌سازی ثبت‌شده در فایل وضعیت آزاد شده است؛ از نو شروع می‌کنیم' ;;
    setsid_missing) template='run به setsid (از util-linux یا busybox) نیاز دارد تا فرمان نصب گروه فرایند خودش را داشته باشد' ;;
    running) template='در حال اجرا: %1' ;;
    install_command_failed) template='فرمان نصب ناموفق بود (کد خروج %1)' ;;
    already_registered) template='سرور پیش‌تر ثبت شده است (توکن عامل آن در %1 است)' ;;
    curl_missing) template='curl لازم است' ;;
    count_seconds_one) template='%1 ثانیه' ;;
    count_seconds_other) template='%1 ثانیه' ;;
    count_minutes_one) template='%1 دقیقه' ;;
    count_minutes_other) template='%1 دقیقه' ;;
    count_hours_one) template='%1 ساعت' ;;
    count_hours_other) template='%1 ساعت' ;;
    duration_hours_minutes) template='%1 و %2' ;;
  esac
}

# Arabic. Said only where no terminal shows it (choose_language). A token is «الرمز المميز», the install code «رمز التثبيت».
catalog_ar() {
  case "$1" in
    state_value_unexpected) template='رُفض حفظ قيمة غير متوقعة للمفتاح %1' ;;
    receipt_not_jws) template='الإيصال الوارد في الرد ليس JWS مضغوطًا' ;;
    lock_cannot_create) template='تعذّر إنشاء القفل %1' ;;
    lock_busy) template='نسخة أخرى من activate.sh (العملية %1) تستخدم %2: انتظر حتى تنتهي (إن لم تكن هذه العملية قائمة، فاحذف %3)' ;;
    lock_cannot_take) template='تعذّر الحصول على القفل %1' ;;
    lock_taken_over) template='انتهت العملية %1، فيُنقل قفلها إلى هذا التشغيل' ;;
    lock_lost) template='أخذت نسخة أخرى من activate.sh القفل %1' ;;
    orphan_stopping) template='ما زال أمر التثبيت من تشغيل سابق يعمل (مجموعة العمليات %1): جارٍ إيقافه' ;;
    no_install_code) template='لا يوجد رمز تثبيت: مرّر --code-file PATH أو اضبط SLOWDNS_INSTALL_CODE، أو شغّل السكربت في طرفية' ;;
    prompt_install_code) template='رمز التثبيت (من صفحة SlowDNS): ' ;;
    install_code_empty) template='رمز التثبيت فارغ' ;;
    machine_id_unreadable) template='تعذّرت قراءة %1 (اضبط SLOWDNS_MACHINE_ID_FILE)' ;;
    machine_id_invalid) template='لا يحتوي %1 على معرّف جهاز (32 محرفًا ست عشريًا بأحرف صغيرة)' ;;
    host_key_not_found) template='لم يُعثر على مفتاح مضيف SSH في /etc/ssh (اضبط SLOWDNS_SSH_HOST_KEY أو SLOWDNS_SSH_FINGERPRINT)' ;;
    ssh_keygen_missing_fingerprint) template='الأداة ssh-keygen غير موجودة (اضبط SLOWDNS_SSH_FINGERPRINT)' ;;
    fingerprint_not_sha256) template='بصمة SSH ليست بالصيغة SHA256:… (ssh-keygen -E sha256 -lf <مفتاح المضيف>)' ;;
    fingerprint_unexpected_characters) template='تحتوي بصمة SSH على محارف غير متوقعة' ;;
    host_key_unreadable) template='تعذّرت قراءة مفتاح المضيف %1 (--host-key)' ;;
    host_key_not_private) template='%1 ليس مفتاح SSH خاصًا (--host-key)' ;;
    no_proof_no_private_key) template='لا يوجد مفتاح مضيف SSH خاص يستطيع هذا المستخدم قراءته (شغّل السكربت بصلاحيات root، أو حدّد مفتاحًا عبر --host-key)' ;;
    no_proof_ssh_keygen_missing) template='الأداة ssh-keygen غير موجودة' ;;
    no_proof_other_key) template='مفتاح المضيف %1 لا يطابق البصمة المرسلة (%2)' ;;
    no_proof_no_challenge) template='لم يُرجع الفحص المسبق أي تحدٍّ للتوقيع (خدمة لا تستخدم إثبات الأجهزة)' ;;
    no_proof_cannot_sign) template='لا تستطيع ssh-keygen التوقيع بالمفتاح %1 (يتطلب ssh-keygen -Y sign الإصدار OpenSSH 8.1 أو أحدث): %2' ;;
    proof_required_cannot) template='تشترط هذه الخدمة أن تُثبت الأجهزة مفتاح مضيف SSH الخاص بها، وهذا الجهاز لا يستطيع ذلك: %1' ;;
    going_on_unproven) template='المتابعة دون إثبات مفتاح مضيف SSH لهذا الجهاز: %1' ;;
    code_id_needs_value) template='الخيار --install-code-id يحتاج إلى معرّف رمز (ic_…)' ;;
    token_file_needs_path) template='الخيار --identity-token-file يحتاج إلى مسار' ;;
    identity_needs_token_file) template='الخيار --install-code-id يحتاج إلى رمز هوية: مرّر --identity-token-file PATH أو اضبط SLOWDNS_IDENTITY_TOKEN_FILE' ;;
    identity_needs_code_id) template='رمز الهوية يحتاج إلى معرّف رمزه: مرّر --install-code-id ID أو اضبط SLOWDNS_INSTALL_CODE_ID' ;;
    code_and_code_id) template='مرّر رمز تثبيت أو --install-code-id مع رمز هوية، لا كليهما' ;;
    install_code_id_invalid) template='%1 ليس معرّف رمز تثبيت (ic_ يليه 16 حرفًا ست عشريًا صغيرًا)' ;;
    identity_token_unreadable) template='تعذّرت قراءة ملف رمز الهوية %1 (%2)' ;;
    identity_token_unusable) template='ملف رمز الهوية %1 (%2) لا يحتوي على رمز (JWT: حروف وأرقام ونقاط و- و_)' ;;
    precheck_identity) template='تقبل الخدمة هوية هذا الجهاز %1 الصادرة عن %2' ;;
    code_file_needs_path) template='الخيار --code-file يحتاج إلى مسار' ;;
    host_key_needs_path) template='الخيار --host-key يحتاج إلى مسار مفتاح مضيف SSH خاص' ;;
    code_file_unreadable) template='تعذّرت قراءة ملف رمز التثبيت %1 (%2)' ;;
    code_file_open_to_others) template='يستطيع آخرون قراءة ملف رمز التثبيت %1 (%2) أو الكتابة فيه (%3): طبّق عليه chmod 600' ;;
    code_file_other_owner) template='ملف رمز التثبيت %1 (%2) يخص مستخدمًا آخر (uid %3): يجب أن يكون ملكك أو ملك root' ;;
    observed_needs_precheck) template='يتطلب SLOWDNS_PUBLIC_IP=observed فحصًا مسبقًا في التشغيل نفسه (استخدم run، أو اذكر العنوان)' ;;
    max_wait_invalid) template='يجب أن تكون قيمة SLOWDNS_MAX_WAIT_SECONDS عددًا صحيحًا من الثواني لا يقل عن 1' ;;
    url_missing) template='اضبط SLOWDNS_URL على عنوان خدمة التفعيل، مثل https://activation.example.net' ;;
    no_answer_from) template='لا رد من %1: %2' ;;
    retry_unavailable) template='الخدمة غير متاحة؛ إعادة المحاولة بعد %1 (المحاولة %2 من %3)' ;;
    retry_no_answer) template='لا رد؛ إعادة المحاولة بعد %1 (المحاولة %2 من %3)' ;;
    unexpected_http_answer) template='رد HTTP %1 غير متوقع من %2' ;;
    rate_limit_not_retried) template='لا يعيد هذا السكربت المحاولة عند بلوغ حد عدد الطلبات: أعد تشغيله بعد %1.' ;;
    cloned_image_hint) template='إذا كان هذا الجهاز مستنسخًا من صورة، فإن /etc/machine-id ومفاتيح مضيف SSH فيه نسخ مشتركة مع الأجهزة المستنسخة الأخرى: امنحه معرّفًا ومفاتيح خاصة به (rm -f /etc/machine-id && systemd-machine-id-setup; rm -f /etc/ssh/ssh_host_* && ssh-keygen -A) ثم أعد التشغيل.' ;;
    service_refused) template='%1 (%2)' ;;
    precheck_answer_unusable) template='لا يحتوي رد الفحص المسبق على precheck_token صالح للاستخدام' ;;
    precheck_valid) template='رمز التثبيت %1 صالح لهذا الجهاز (تراه الخدمة على العنوان %2)' ;;
    precheck_valid_address_unknown) template='رمز التثبيت %1 صالح لهذا الجهاز (تراه الخدمة على عنوان غير معروف)' ;;
    address_unconfirmed) template='اضبط SLOWDNS_HOSTNAME و SLOWDNS_PUBLIC_IP، أو شغّل السكربت في طرفية لتأكيدهما' ;;
    prompt_hostname) template='اسم المضيف [%1]: ' ;;
    prompt_public_ip) template='عنوان IP العام [%1]: ' ;;
    prompt_activate) template='هل تريد تفعيل %1 (%2)؟ [y/N] ' ;;
    answer_yes) template='نعم' ;;
    not_confirmed) template='لم يتم التأكيد: لم يُفعَّل أي شيء' ;;
    hostname_invalid) template='لا يجوز أن يحتوي اسم المضيف إلا على أحرف وأرقام ونقاط وشرطات' ;;
    public_ip_invalid) template='يجب أن يكون عنوان IP العام عنوان IPv4 أو IPv6' ;;
    no_precheck_token) template='لا يوجد رمز مميز للفحص المسبق في %1: شغّل الفحص المسبق (precheck) أولًا' ;;
    proof_not_accepted) template='لم تقبل الخدمة إثبات مفتاح مضيف SSH لهذا الجهاز (هل %1 هو العنوان العام للخدمة نفسها؟): المتابعة دون إثبات' ;;
    activate_answer_unusable) template='لا يحتوي رد التفعيل على تفعيل صالح للاستخدام' ;;
    activated) template='فُعِّل المضيف %2 (%3): التفعيل %1' ;;
    activated_proven) template='فُعِّل المضيف %2 (%3): التفعيل %1، مع إثبات مفتاح مضيف SSH' ;;
    observed_address_differs) template='ملاحظة: رأت الخدمة هذا الجهاز على %1 لا على %2 (هذا طبيعي خلف NAT؛ وإلا فتحقّق من عدم وجود خطأ كتابي)' ;;
    waiting_for_operator) template='في انتظار موافقة أحد المشرفين على هذا الجهاز (الرمز %1، الفحص المسبق %2): من لوحة التحكم على %3، أو بالأمر: %4' ;;
    waiting_for_person) template='في انتظار أن يوافق صاحب الرمز %1 على هذا الجهاز في صفحة SlowDNS (%2)' ;;
    no_decision_before_expiry) template='لم يُتَّخذ قرار في صفحة SlowDNS قبل انتهاء صلاحية رمز التثبيت: اطلب رمزًا جديدًا وأعد التشغيل' ;;
    no_activation_to_confirm) template='لا يوجد تفعيل في %1: لا شيء لتأكيده' ;;
    no_activation_to_release) template='لا يوجد تفعيل في %1: لا شيء لتحريره' ;;
    no_activation_to_read_back) template='لا يوجد تفعيل في %1: لا شيء للاستعلام عنه' ;;
    no_activation_to_register) template='لا يوجد تفعيل في %1: لا شيء لتسجيله' ;;
    install_token_already_used) template='الرمز المميز للتثبيت مستخدم من قبل' ;;
    install_confirmed) template='تم تأكيد التثبيت (%1)' ;;
    released_code_restored) template='حُرِّر التفعيل؛ يمكن استخدام رمز التثبيت مرة أخرى' ;;
    released_code_not_restored) template='حُرِّر التفعيل؛ تعذّرت استعادة رمز التثبيت: اطلب رمزًا جديدًا من صفحة SlowDNS' ;;
    no_receipt_not_confirmed) template='لا يوجد إيصال: التثبيت المحفوظ في %1 غير مؤكَّد (الحالة %2)' ;;
    agent_token_file_missing) template='اضبط SLOWDNS_AGENT_TOKEN_FILE: مكان حفظ الرمز المميز للوكيل (لا يُعرض إلا مرة واحدة)' ;;
    register_answer_unusable) template='لا يحتوي رد التسجيل على agent_token صالح للاستخدام' ;;
    server_registered) template='سُجِّل الخادم باسم %1؛ وكُتب الرمز المميز للوكيل في %2' ;;
    install_unfinished_releasing) template='لم يكتمل التثبيت: جارٍ تحرير التفعيل' ;;
    release_failed) template='فشل التحرير: شغّل activate.sh release مرة أخرى (ملف الحالة: %1)' ;;
    interrupted) template='أُوقف التشغيل بالإشارة %1' ;;
    confirmed_with_other_code) template='يحتوي %1 على تثبيت مؤكَّد برمز آخر (%2، %3): لإعادة التثبيت بهذا الرمز، اضبط SLOWDNS_STATE_FILE على ملف آخر (أو انقل هذا الملف)' ;;
    state_activation_unknown) template='التفعيل المحفوظ في ملف الحالة غير معروف لدى الخدمة؛ البدء من جديد' ;;
    already_confirmed) template='هذا التثبيت مؤكَّد من قبل (%1)' ;;
    resuming) template='استئناف التفعيل %1' ;;
    state_activation_expired) template='انتهت صلاحية التفعيل المحفوظ في ملف الحالة؛ جارٍ تحريره والبدء من جديد' ;;
    state_activation_released) template='التفعيل المحفوظ في ملف الحالة محرَّر من قبل؛ البدء من جديد' ;;
    setsid_missing) template='يحتاج run إلى setsid (من util-linux أو busybox) ليمنح أمر التثبيت مجموعة عمليات خاصة به' ;;
    running) template='جارٍ تشغيل: %1' ;;
    install_command_failed) template='فشل أمر التثبيت (رمز الخروج %1)' ;;
    already_registered) template='الخادم مسجَّل من قبل (رمزه المميز للوكيل في %1)' ;;
    curl_missing) template='الأداة curl مطلوبة' ;;
    count_seconds_one) template='ثانية واحدة' ;;
    count_seconds_other) template='%1 ثانية' ;;
    count_minutes_one) template='دقيقة واحدة' ;;
    count_minutes_other) template='%1 دقيقة' ;;
    count_hours_one) template='ساعة واحدة' ;;
    count_hours_other) template='%1 ساعة' ;;
    duration_hours_minutes) template='%1 و%2' ;;
    count_seconds_zero) template='%1 ثانية' ;;
    count_seconds_two) template='ثانيتين' ;;
    count_seconds_few) template='%1 ثوانٍ' ;;
    count_seconds_many) template='%1 ثانية' ;;
    count_minutes_zero) template='%1 دقيقة' ;;
    count_minutes_two) template='دقيقتين' ;;
    count_minutes_few) template='%1 دقائق' ;;
    count_minutes_many) template='%1 دقيقة' ;;
    count_hours_zero) template='%1 ساعة' ;;
    count_hours_two) template='ساعتين' ;;
    count_hours_few) template='%1 ساعات' ;;
    count_hours_many) template='%1 ساعة' ;;
  esac
}

# === end of messages ==============================================================================

main "$@"
