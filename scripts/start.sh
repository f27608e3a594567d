#!/usr/bin/env bash
# `npm start`: bootstrap, build, run the main job. Until the node app exists this is the workspace smoke
# command: it loads every built package from dist with plain Node ESM and prints what is built.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$STRATA_ROOT"
bash scripts/bootstrap.sh
exec node scripts/smoke.mjs "$@"
