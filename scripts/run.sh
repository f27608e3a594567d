#!/usr/bin/env bash
# Runs one repo tool (turbo, biome, vitest, changeset, strata-bench, ...) after making sure the checkout is
# bootstrapped, with the repo's PATH and environment. Used by the root package.json scripts.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$STRATA_ROOT"
STRATA_BOOTSTRAP_NO_BUILD=1 bash scripts/bootstrap.sh
exec "$@"
