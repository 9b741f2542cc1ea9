#!/usr/bin/env bash
# Builds the hub's container image with podman, without a registry (docs/decisions/0037-container-base.md):
#
#   1. the base: the Debian minbase root filesystem tarball of prepare-base.sh (which runs debootstrap against
#      the Debian mirror apt uses, when the tarball is not there yet), imported as $SVC_BASE_IMAGE; skipped
#      when that image exists already;
#   2. the build context: the Node binary of the npm registry's node@24 package (scripts/use-node24.sh, .node/),
#      the built hub, console and agent bundle (npm run build), and the production node_modules (this
#      checkout's, pruned of devDependencies: the native addons are the ones built here for this Node);
#   3. podman build -f deploy/container/Containerfile, pulling nothing, in a network namespace of its own.
#
#   deploy/container/build-image.sh                  # localhost/svc-hub:latest
#   SVC_IMAGE=localhost/svc-hub:test PODMAN="podman --root /tmp/x/root" deploy/container/build-image.sh
#   SVC_OFFLINE=1 deploy/container/build-image.sh    # fails rather than reach the network (the test's mode)
#
# Settings (environment): SVC_IMAGE (the tag), SVC_BASE_IMAGE (default localhost/svc-debian-base:bookworm),
# SVC_BASE_TARBALL (default .cache/container-base/debian-bookworm-minbase.tar), SVC_OFFLINE=1 (never
# debootstrap nor fetch Node: fail, naming the command that prepares what is missing), PODMAN (the podman
# command with any global flags), SVC_SKIP_BUILD=1 (use the build output as it is), and prepare-base.sh's
# DEBIAN_SUITE, DEBIAN_MIRROR, SVC_DEBOOTSTRAP_CACHE. Run as root (debootstrap and podman's storage); minutes
# cold, under a minute with the base tarball prepared.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
image="${SVC_IMAGE:-localhost/svc-hub:latest}"
base="${SVC_BASE_IMAGE:-localhost/svc-debian-base:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"
read -r -a podman <<<"${PODMAN:-podman}"

log() { printf 'build-image: %s\n' "$*" >&2; }

offline="${SVC_OFFLINE:-}"
default_tarball="$root/.cache/container-base/debian-$suite-minbase.tar"
tarball="${SVC_BASE_TARBALL:-$default_tarball}"
export SVC_BASE_TARBALL="$tarball"

work="$(mktemp -d "${TMPDIR:-/tmp}/svc-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# ---- 1. the base ------------------------------------------------------------------------------------------
if "${podman[@]}" image exists "$base"; then
  log "base $base: present"
else
  if [ ! -s "$tarball" ]; then
    if [ "$offline" = "1" ]; then
      prepare="deploy/container/prepare-base.sh"
      [ "$tarball" = "$default_tarball" ] || prepare="SVC_BASE_TARBALL=$tarball $prepare"
      [ "$suite" = bookworm ] || prepare="DEBIAN_SUITE=$suite $prepare"
      log "SVC_OFFLINE=1 and the base $tarball is missing: prepare it (network, as root) with"
      log "  $prepare"
      exit 1
    fi
    "$root/deploy/container/prepare-base.sh"
  fi
  log "base $base: podman import $tarball"
  "${podman[@]}" import --quiet \
    --change 'CMD ["/bin/bash"]' --message "debootstrap --variant=minbase $suite" \
    "$tarball" "$base" >/dev/null
fi

# ---- 2. the build context ---------------------------------------------------------------------------------
node_bin="$root/.node/node_modules/node/bin/node"
if [ ! -x "$node_bin" ]; then
  if [ "$offline" = "1" ]; then
    log "SVC_OFFLINE=1 and $node_bin is missing: install it (network) with scripts/use-node24.sh true"
    exit 1
  fi
  log "Node 24 from the npm registry (scripts/use-node24.sh)"
  "$root/scripts/use-node24.sh" true
fi
node_bin="$(readlink -f "$node_bin")"
export PATH="$(dirname "$node_bin"):$PATH"

if [ "${SVC_SKIP_BUILD:-}" != "1" ]; then
  log "npm run build"
  (cd "$root" && node scripts/build.js >&2)
fi
for built in apps/hub/dist/main.js apps/agent/dist/svc-agent.mjs apps/web/dist/index.html; do
  [ -f "$root/$built" ] || { log "$built is missing: run npm run build"; exit 1; }
done

ctx="$work/context"
app="$ctx/app"
mkdir -p "$app"
cp "$node_bin" "$ctx/node"
cp "$root/deploy/container/Containerfile" "$ctx/Containerfile"
cp "$root/package.json" "$root/package-lock.json" "$app/"
# Every workspace's manifest (npm needs them to prune), and what runs: the hub's launcher and bundle, the
# Node check it shares with the agent, the agent bundle, the console.
for manifest in "$root"/apps/*/package.json "$root"/packages/*/package.json; do
  rel="${manifest#"$root"/}"
  mkdir -p "$app/$(dirname "$rel")"
  cp "$manifest" "$app/$rel"
done
cp -r "$root/apps/hub/bin" "$root/apps/hub/dist" "$app/apps/hub/"
cp -r "$root/apps/agent/bin" "$root/apps/agent/dist" "$app/apps/agent/"
cp -r "$root/apps/web/dist" "$app/apps/web/"
cp -a "$root/node_modules" "$app/node_modules"
log "npm prune --omit=dev (offline)"
(cd "$app" && npm prune --omit=dev --offline --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
# What the registry's packages carry that the hub never loads.
find "$app/node_modules" -type f \( -name '*.md' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.map' \) -delete

# ---- 3. the image -----------------------------------------------------------------------------------------
log "podman build $image (from $base)"
# Everything is local: the base is in this storage (no pulls) and the one RUN (useradd) needs no network.
# Chroot isolation shares the caller's network namespace (it refuses --network none), so as root, and always
# with SVC_OFFLINE=1, the build runs in a new one where only loopback exists.
no_network=()
if [ "$offline" = "1" ] || [ "$(id -u)" = 0 ]; then no_network=(unshare --net); fi
"${no_network[@]}" "${podman[@]}" build --quiet --isolation chroot --pull=never --build-arg "BASE=$base" \
  -f "$ctx/Containerfile" -t "$image" "$ctx" >/dev/null
log "built $image"
