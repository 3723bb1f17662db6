#!/usr/bin/env bash
# podman, as CI runs it on its machines (DESIGN §29): their quirks live here, never in the Dockerfile.
#  - runc is the runtime that works there (`runtime = "runc"`);
#  - no default ulimits: rootful Podman raises the container's open-files limit, which the CI machine's
#    sandbox refuses ("error setting rlimit type 7: operation not permitted").
# CONTAINERS_CONF points at a containers.conf this script writes (in TMPDIR, once). Everything else is
# plain `podman "$@"`.
set -euo pipefail
conf="${TMPDIR:-/tmp}/slowdns-podman/containers.conf"
if [ ! -f "$conf" ]; then
  mkdir -p "$(dirname "$conf")"
  printf '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n' >"$conf.$$"
  mv "$conf.$$" "$conf"
fi
CONTAINERS_CONF="$conf" exec podman "$@"
