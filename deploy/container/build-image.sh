#!/usr/bin/env bash
# Builds the hub's container image with podman, without a registry (docs/decisions/0037-container-base.md):
#
#   1. the base: a Debian root filesystem made by debootstrap (variant minbase) from the Debian mirror apt
#      uses, trimmed, imported as $SVC_BASE_IMAGE; skipped when that image exists already;
#   2. the build context: the Node binary of the npm registry's node@24 package (scripts/use-node24.sh, .node/),
#      the built hub, console and agent bundle (npm run build), and the production node_modules (this
#      checkout's, pruned of devDependencies: the native addons are the ones built here for this Node);
#   3. podman build -f deploy/container/Containerfile.
#
#   deploy/container/build-image.sh                  # localhost/svc-hub:latest
#   SVC_IMAGE=localhost/svc-hub:test PODMAN="podman --root /tmp/x/root" deploy/container/build-image.sh
#
# Settings (environment): SVC_IMAGE (the tag), SVC_BASE_IMAGE (default localhost/svc-debian-base:bookworm),
# DEBIAN_SUITE (bookworm), DEBIAN_MIRROR (the first deb.debian.org-like URI of apt's sources, else
# http://deb.debian.org/debian), PODMAN (the podman command with any global flags), SVC_SKIP_BUILD=1 (use the
# build output as it is), SVC_DEBOOTSTRAP_CACHE (a directory keeping the downloaded .debs for the next cold
# base). Run as root (debootstrap and podman's storage); about a minute cold, seconds warm.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
image="${SVC_IMAGE:-localhost/svc-hub:latest}"
base="${SVC_BASE_IMAGE:-localhost/svc-debian-base:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"
read -r -a podman <<<"${PODMAN:-podman}"

log() { printf 'build-image: %s\n' "$*" >&2; }

default_mirror() {
  local uri
  uri="$(grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
    grep -oE 'https?://[^ ]+' | head -n 1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

work="$(mktemp -d "${TMPDIR:-/tmp}/svc-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# ---- 1. the base ------------------------------------------------------------------------------------------
if "${podman[@]}" image exists "$base"; then
  log "base $base: present"
else
  command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
  mirror="${DEBIAN_MIRROR:-$(default_mirror)}"
  log "base $base: debootstrap --variant=minbase $suite from $mirror"
  started=$SECONDS
  cache=()
  if [ -n "${SVC_DEBOOTSTRAP_CACHE:-}" ]; then
    mkdir -p "$SVC_DEBOOTSTRAP_CACHE"
    cache=("--cache-dir=$(cd "$SVC_DEBOOTSTRAP_CACHE" && pwd)")
  fi
  debootstrap --variant=minbase "${cache[@]}" "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  # What a server image never reads: documentation, manuals, translations, apt's caches and lists.
  rm -rf "$work/rootfs"/usr/share/{doc,man,info,locale}/* "$work/rootfs"/var/cache/apt/* \
    "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/log/*.log "$work/rootfs"/var/cache/debconf/*-old
  tar --numeric-owner -C "$work/rootfs" -cf "$work/rootfs.tar" .
  rm -rf "$work/rootfs"
  "${podman[@]}" import --quiet \
    --change 'CMD ["/bin/bash"]' --message "debootstrap --variant=minbase $suite" \
    "$work/rootfs.tar" "$base" >/dev/null
  rm -f "$work/rootfs.tar"
  log "base $base: made in $((SECONDS - started)) s"
fi

# ---- 2. the build context ---------------------------------------------------------------------------------
node_bin="$root/.node/node_modules/node/bin/node"
if [ ! -x "$node_bin" ]; then
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
"${podman[@]}" build --quiet --isolation chroot --build-arg "BASE=$base" \
  -f "$ctx/Containerfile" -t "$image" "$ctx" >/dev/null
log "built $image"
