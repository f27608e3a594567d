#!/usr/bin/env bash
# `npm start`: bootstrap, build, check that every built package loads from dist (scripts/smoke.mjs), then run the
# strata node on a demo network serving Stellar RPC on 127.0.0.1:8000 (scripts/demo.mjs; ./data holds it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$STRATA_ROOT"
bash scripts/bootstrap.sh
node scripts/smoke.mjs >/dev/null
exec node scripts/demo.mjs "$@"
