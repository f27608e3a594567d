#!/usr/bin/env bash
# `npm test`: bootstrap, build, typecheck, lint, changeset check, every test (unit, property, integration with
# the real fixtures in ../shared/fixtures) in one vitest run, then the packed-tarball check (scripts/check-packed.mjs).
# Every step runs even if an earlier check failed, so one run shows everything that is wrong. The last line is
# `N passed, N failed`: tests from vitest's JSON report and the packed check's counts, plus one failure per failed
# check step.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$STRATA_ROOT"

failed_steps=()
step() { local name="$1"; shift; echo "== $name: $*"; "$@" || failed_steps+=("$name"); }

if ! bash scripts/bootstrap.sh; then
  echo "bootstrap (install + build) failed"
  echo "0 passed, 1 failed"
  exit 1
fi
step typecheck turbo run typecheck --output-logs=errors-only
step lint biome ci --colors=off --reporter=summary .
# Changesets must parse (their frontmatter is easy to break by hand or by a formatter).
step changesets node scripts/check-changesets.mjs
report=".vitest-report.json"
rm -f "$report"
step tests vitest run --reporter=default --reporter=json --outputFile.json="$report"
# What a user outside the workspace gets: packed tarballs installed with npm, README examples run as written.
packed_counts=".packed-counts.json"
rm -f "$packed_counts"
step packed node scripts/check-packed.mjs --counts "$packed_counts"

summary="$(node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0, skipped = 0;
  try {
    const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    passed = r.numPassedTests; failed = r.numFailedTests; skipped = r.numPendingTests + r.numTodoTests;
    // A suite that failed to load (syntax error, missing import) has no tests but is still a failure.
    failed += r.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  } catch { failed = 1; }
  try {
    const p = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
    passed += p.passed; failed += p.failed; skipped += p.skipped;
  } catch { failed += 1; }
  const steps = Number(process.argv[2]);
  process.stdout.write(`${passed} ${failed + steps} ${skipped}`);
' "$report" "$(printf '%s\n' "${failed_steps[@]}" | grep -cv '^tests$\|^packed$\|^$')" "$packed_counts")"
read -r passed failed skipped <<<"$summary"
[ ${#failed_steps[@]} -gt 0 ] && echo "failed steps: ${failed_steps[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ ${#failed_steps[@]} -eq 0 ]
