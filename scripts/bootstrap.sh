#!/usr/bin/env bash
# Brings a checkout to a runnable state on a machine with only Node >= 20.19 and npm: pnpm 12.4.2, node-gyp
# headers from the local Node, `pnpm install --frozen-lockfile`, and a build. Idempotent; when nothing that
# affects the install changed since the last run it only runs the (cached) build. Works as root and as a
# normal user: nothing is written outside the checkout except node-gyp's header cache link in $HOME.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$STRATA_ROOT"

PNPM_VERSION=12.4.2
log() { printf '[bootstrap] %s\n' "$*" >&2; }

# 1. Node version (vite 8 needs ^20.19; our native addons are built for the running Node).
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("Node >= 20.19 required, found "+process.version); process.exit(1) }'

# 2. pnpm: use a matching pnpm on PATH, else install one into .tools/ (no root needed, no global change).
have_pnpm_version() { command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; }
if ! have_pnpm_version; then
  log "installing pnpm $PNPM_VERSION into .tools/"
  npm install --prefix "$STRATA_ROOT/.tools/pnpm" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >&2
  mkdir -p "$STRATA_ROOT/.tools/bin"
  ln -sf ../pnpm/node_modules/.bin/pnpm "$STRATA_ROOT/.tools/bin/pnpm"
  hash -r
  have_pnpm_version || { log "pnpm $PNPM_VERSION did not install"; exit 1; }
fi

# 3. node-gyp headers: besides npm_config_nodedir (env.sh), link the local headers into node-gyp's cache so a
#    plain `pnpm install` outside these scripts also builds without a download.
node_version="$(node -p process.versions.node)"
if [ -n "${npm_config_nodedir:-}" ] && [ -n "${HOME:-}" ] && [ -w "${HOME}" -o ! -e "${HOME}" ]; then
  gyp_dir="$HOME/.cache/node-gyp/$node_version"
  if [ ! -e "$gyp_dir/include/node/node_api.h" ]; then
    mkdir -p "$gyp_dir/include" && ln -sfn "$npm_config_nodedir/include/node" "$gyp_dir/include/node" \
      && echo 11 > "$gyp_dir/installVersion" || log "could not link node-gyp headers (npm_config_nodedir still applies)"
  fi
fi

# 4. Install, only when an input of the install changed (or node_modules is missing).
stamp_file="node_modules/.strata-bootstrap"
install_inputs() {
  echo "node $node_version pnpm $PNPM_VERSION"
  find . -name node_modules -prune -o -name .tools -prune -o \( -name package.json -o -name pnpm-workspace.yaml -o -name pnpm-lock.yaml \) -print \
    | LC_ALL=C sort | xargs sha256sum
}
want_stamp="$(install_inputs | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp_file" ] || [ "$(cat "$stamp_file")" != "$want_stamp" ]; then
  if [ -f pnpm-lock.yaml ]; then
    log "pnpm install --frozen-lockfile"
    pnpm install --frozen-lockfile --reporter=append-only >&2
  else
    log "no pnpm-lock.yaml yet: pnpm install (commit the lockfile it writes)"
    pnpm install --reporter=append-only >&2
    want_stamp="$(install_inputs | sha256sum | cut -d' ' -f1)"
  fi
  echo "$want_stamp" > "$stamp_file"
else
  log "dependencies up to date"
fi

# 5. Build (turbo replays cached outputs when sources did not change).
if [ "${STRATA_BOOTSTRAP_NO_BUILD:-}" != 1 ]; then
  turbo run build --output-logs=errors-only >&2
fi
