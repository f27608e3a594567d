# Sourced by the other scripts: the tool paths and environment every repo command runs with.
# The repo-local pnpm (scripts/bootstrap.sh installs it when the machine has no pnpm 12.4.2) and the workspace's
# own binaries come first on PATH, so turbo can spawn pnpm and the scripts find turbo, vitest, biome and tsx.
STRATA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export STRATA_ROOT
export PATH="$STRATA_ROOT/.tools/bin:$STRATA_ROOT/node_modules/.bin:$PATH"
# turbo's telemetry does DNS lookups that can only fail here; skip them.
export TURBO_TELEMETRY_DISABLED=1
export DO_NOT_TRACK=1
# node-gyp must build against this Node's own headers: pnpm does not pass npm's nodedir through, and the
# headers tarball cannot be downloaded. The prefix that holds include/node/node_api.h is the one to use.
if [ -z "${npm_config_nodedir:-}" ]; then
  _node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$_node_prefix/include/node/node_api.h" ]; then
    export npm_config_nodedir="$_node_prefix"
  fi
  unset _node_prefix
fi
# Vitest and biome print colour codes even into pipes; logs stay parseable without them.
if [ -n "${CI:-}" ] || [ ! -t 1 ]; then export NO_COLOR=1; fi
