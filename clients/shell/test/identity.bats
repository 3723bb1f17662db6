#!/usr/bin/env bats
# activate.sh with a code that trusts workload identity (DESIGN §25): a real OpenID provider on loopback
# (oidc-provider, test/support/workload-issuer-process.ts) mints the tokens a platform would write to a file;
# the machine holds no install code at all. The service may fetch the provider's keys over loopback http
# (IDENTITY_ISSUER_ALLOW_HTTP / _PRIVATE, as in labs).

load helpers

setup_file() {
  build_service
  (cd "$REPO_ROOT" && node --import tsx test/support/workload-issuer-process.ts >"$BATS_FILE_TMPDIR/issuer.out" 2>"$BATS_FILE_TMPDIR/issuer.log") &
  echo "$!" >"$BATS_FILE_TMPDIR/issuer.pid"
  wait_for_file "$BATS_FILE_TMPDIR/issuer.out" || { cat "$BATS_FILE_TMPDIR/issuer.log" >&3; return 1; }
  ISSUER=$(sed -n 's/.*"issuer":"\([^"]*\)".*/\1/p' "$BATS_FILE_TMPDIR/issuer.out")
  MINT=$(sed -n 's/.*"mint":"\([^"]*\)".*/\1/p' "$BATS_FILE_TMPDIR/issuer.out")
  export ISSUER MINT
  start_service SERVICE ADMIN_TOKEN="$BATS_ADMIN_TOKEN" IDENTITY_ISSUER_ALLOW_HTTP=true IDENTITY_ISSUER_ALLOW_PRIVATE=true
}

teardown_file() {
  for pid_file in "$BATS_FILE_TMPDIR"/*.pid; do
    [ -f "$pid_file" ] && stop_service "$(cat "$pid_file")"
  done
}

setup() {
  fresh_installer
  unset SLOWDNS_INSTALL_CODE_ID SLOWDNS_IDENTITY_TOKEN_FILE
}

SUB='repo:example-org/dns-fleet:ref:refs/heads/main'

# trust_code [rules]: a code that trusts the loopback provider, with the tag `repo` taken from the `repository`
# claim; its id alone (the answer's install_code is null). [rules] replaces the default claims rule.
trust_code() {
  rules=${1:-'"claims":{"repository_owner_id":"4242"}'}
  printf 'header = "Authorization: Bearer %s"\n' "$BATS_ADMIN_TOKEN" >"$BATS_TEST_TMPDIR/admin.curlrc"
  curl -fsS -K "$BATS_TEST_TMPDIR/admin.curlrc" -H 'content-type: application/json' \
    --data "{\"uses\":5,\"ttl_seconds\":86400,\"tags\":{\"env\":\"ci\"},\"trust\":{\"issuer\":\"$ISSUER\",\"audiences\":[\"https://slowdns.example.net\"],\"subject_pattern\":\"repo:example-org/*:ref:refs/heads/main\",$rules,\"tags_from_claims\":{\"repo\":\"repository\"}}}" \
    "$SERVICE_URL/api/v2/admin/install-codes" >"$BATS_TEST_TMPDIR/code.json"
  grep -q '"install_code":null' "$BATS_TEST_TMPDIR/code.json"
  sed -n 's/.*"install_code_id":"\([^"]*\)".*/\1/p' "$BATS_TEST_TMPDIR/code.json"
}

# mint <file> [owner id] [audience]: the platform writes a fresh token for this machine's workload to <file>.
mint() {
  curl -fsS --data "{\"sub\":\"$SUB\",\"claims\":{\"repository\":\"example-org/dns-fleet\",\"repository_owner_id\":\"${2:-4242}\"},\"audience\":\"${3:-https://slowdns.example.net}\"}" \
    "$MINT" >"$1"
}

admin_get() {
  curl -fsS -K "$BATS_TEST_TMPDIR/admin.curlrc" "$SERVICE_URL$1"
}

@test "run with --install-code-id and --identity-token-file: installs and confirms with no install code anywhere, tags from claims kept" {
  code_id=$(trust_code)
  mint "$BATS_TEST_TMPDIR/token"
  run sh "$ACTIVATE_SH" --install-code-id "$code_id" --identity-token-file "$BATS_TEST_TMPDIR/token" run -- true
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"accepts this machine’s identity $SUB from $ISSUER"* ]]
  [[ "$output" == *"install confirmed"* ]]
  # Nothing of a code on the machine: the environment names none, the state file holds no token (only the hint).
  [ -z "${SLOWDNS_INSTALL_CODE:-}${SLOWDNS_INSTALL_CODE_FILE:-}" ]
  if grep -qF "$(cat "$BATS_TEST_TMPDIR/token")" "$SLOWDNS_STATE_FILE"; then false; fi
  if grep -q 'SDNS-SD-[A-Z0-9]\{6\}-' "$SLOWDNS_STATE_FILE"; then false; fi
  admin_get "/api/v2/admin/activations/$(state_value activation_id)" >"$BATS_TEST_TMPDIR/activation.json"
  grep -q '"repo":"example-org/dns-fleet"' "$BATS_TEST_TMPDIR/activation.json"
  grep -q '"env":"ci"' "$BATS_TEST_TMPDIR/activation.json"
}

@test "step by step from SLOWDNS_INSTALL_CODE_ID and SLOWDNS_IDENTITY_TOKEN_FILE: the file is read again at each precheck" {
  export SLOWDNS_INSTALL_CODE_ID="$(trust_code)" SLOWDNS_IDENTITY_TOKEN_FILE="$BATS_TEST_TMPDIR/token"
  mint "$SLOWDNS_IDENTITY_TOKEN_FILE"
  run sh "$ACTIVATE_SH" precheck
  echo "$output"
  [ "$status" -eq 0 ]
  # The platform rotated the file to a token for another audience: the next precheck reads that one, refused.
  mint "$SLOWDNS_IDENTITY_TOKEN_FILE" 4242 https://elsewhere.example.net
  run sh "$ACTIVATE_SH" precheck
  echo "$output"
  [ "$status" -eq 19 ]
  [[ "$output" == *"(identity_token_invalid)"* ]]
  # And a good one again: precheck, then activate sends the id alone (the file is not needed there).
  mint "$SLOWDNS_IDENTITY_TOKEN_FILE"
  run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 0 ]
  rm -f "$SLOWDNS_IDENTITY_TOKEN_FILE"
  run sh "$ACTIVATE_SH" activate
  echo "$output"
  [ "$status" -eq 0 ]
  [ -n "$(state_value activation_id)" ]
}

@test "exit 19: a token whose claim breaks the code's rule (identity_not_allowed): the install command never runs" {
  code_id=$(trust_code)
  mint "$BATS_TEST_TMPDIR/token" 9999
  run sh "$ACTIVATE_SH" --install-code-id "$code_id" --identity-token-file "$BATS_TEST_TMPDIR/token" run -- touch "$BATS_TEST_TMPDIR/installed"
  echo "$output"
  [ "$status" -eq 19 ]
  [[ "$output" == *"(identity_not_allowed)"* ]]
  [ ! -f "$BATS_TEST_TMPDIR/installed" ]
  # The token itself is never said.
  if [[ "$output" == *"$(cut -c1-40 "$BATS_TEST_TMPDIR/token")"* ]]; then false; fi
}

@test "exit 2: an id without a token file, a token file without an id, both forms at once, an id that is not one, a file with no token" {
  run sh "$ACTIVATE_SH" --install-code-id ic_0123456789abcdef precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"--install-code-id needs an identity token"* ]]
  SLOWDNS_IDENTITY_TOKEN_FILE="$BATS_TEST_TMPDIR/token" run sh "$ACTIVATE_SH" precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"an identity token needs the id of its code"* ]]
  echo 'not a token!' >"$BATS_TEST_TMPDIR/token"
  SLOWDNS_INSTALL_CODE=SDNS-SD-000000-000000-000000 run sh "$ACTIVATE_SH" --install-code-id ic_0123456789abcdef --identity-token-file "$BATS_TEST_TMPDIR/token" precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"not both"* ]]
  run sh "$ACTIVATE_SH" --install-code-id=SDNS-SD-000000 --identity-token-file="$BATS_TEST_TMPDIR/token" precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"SDNS-SD-000000 is not the id of an install code"* ]]
  run sh "$ACTIVATE_SH" --install-code-id ic_0123456789abcdef --identity-token-file "$BATS_TEST_TMPDIR/token" precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"holds no token"* ]]
  run sh "$ACTIVATE_SH" --install-code-id ic_0123456789abcdef --identity-token-file "$BATS_TEST_TMPDIR/missing" precheck
  [ "$status" -eq 2 ]
  [[ "$output" == *"cannot read the identity token file $BATS_TEST_TMPDIR/missing (--identity-token-file)"* ]]
}
