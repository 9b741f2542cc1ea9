#!/usr/bin/env bash
# Prepares the base of the hub's container image (docs/decisions/0037-container-base.md), the one step of the
# image build that needs the network: a Debian root filesystem made by debootstrap (variant minbase) from the
# Debian mirror apt uses, trimmed, written as a tarball. build-image.sh imports that tarball with
# `podman import`; with SVC_OFFLINE=1 it never runs this script and fails when the tarball is absent.
#
#   deploy/container/prepare-base.sh     # .cache/container-base/debian-bookworm-minbase.tar; skipped if present
#
# .ci/run runs it in its install phase, so the test phase builds the image offline
# (apps/hub/src/e2e/container-image.test.ts). Settings (environment): SVC_BASE_TARBALL (where the tarball goes),
# DEBIAN_SUITE (bookworm), DEBIAN_MIRROR (the first deb.debian.org-like URI of apt's sources, else
# http://deb.debian.org/debian), SVC_DEBOOTSTRAP_CACHE (a directory keeping the downloaded .debs for the next
# time). Run as root (debootstrap); 30 s to a few minutes, depending on the machine's load.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
suite="${DEBIAN_SUITE:-bookworm}"
tarball="${SVC_BASE_TARBALL:-$root/.cache/container-base/debian-$suite-minbase.tar}"

log() { printf 'prepare-base: %s\n' "$*" >&2; }

default_mirror() {
  local uri
  uri="$(grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
    grep -oE 'https?://[^ ]+' | head -n 1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

if [ -s "$tarball" ]; then
  log "$tarball: present"
  exit 0
fi
command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }

mkdir -p "$(dirname "$tarball")"
work="$(mktemp -d "${TMPDIR:-/tmp}/svc-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mirror="${DEBIAN_MIRROR:-$(default_mirror)}"
log "debootstrap --variant=minbase $suite from $mirror"
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
# Written beside the tarball and renamed: an interrupted run leaves no half tarball that looks prepared.
tar --numeric-owner -C "$work/rootfs" -cf "$tarball.partial" .
mv "$tarball.partial" "$tarball"
log "$tarball: made in $((SECONDS - started)) s ($(du -m "$tarball" | cut -f1) MB)"
