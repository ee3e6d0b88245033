#!/usr/bin/env bash
# Runs every test: type check, lint, the unit and integration suites (SQLite and PostgreSQL,
# a real OpenSSH server, real Chromium) and the requirements-coverage check.
# Starts a throwaway PostgreSQL cluster on a loopback port and removes it afterwards.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/test-services.sh
ensure_system_packages
start_postgres
trap stop_postgres EXIT

echo "== type check (tsc)"
tsc -p tsconfig.json
echo "== lint (biome)"
biome check --diagnostic-level=error src test bench scripts eval examples
echo "== unused files, dependencies, exports and types (knip; kept exceptions and their reasons in knip.jsonc)"
knip
echo "== doc claims (paths, quotes, npm scripts)"
node scripts/doc-claims.ts
echo "== requirements coverage"
node scripts/check-requirements-coverage.ts
echo "== tests (vitest)"
mkdir -p test-results
set +e
vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@"
status=$?
set -e
summary() {
  node -e 'const r=require("./test-results/vitest.json");console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests+r.numTodoTests} skipped`)' 2>/dev/null || echo "0 passed, 1 failed"
}
if [ "$status" -ne 0 ]; then summary; exit "$status"; fi
echo "== requirements coverage: did a mapped test of each requirement run?"
node scripts/check-requirements-coverage.ts --ran test-results/vitest.json
echo "== branch coverage floors (registry, policy, sandbox bridge: >= 90 % each file)"
vitest run --coverage --coverage.reporter=text --coverage.thresholds.branches=90 --coverage.thresholds.perFile=true \
  --coverage.include=src/core/tools/tool-registry.ts --coverage.include=src/core/policy/policy.ts \
  --coverage.include=src/core/policy/approval-binding.ts --coverage.include=src/agents/sandbox/bridge/db-bridge.ts \
  src/core/tools src/core/policy src/agents/sandbox/bridge/orchestrator.state-pollution.test.ts src/agents/sandbox/tools/sandbox-tools.scoping.test.ts
summary
