#!/usr/bin/env bash
# Runs every test: type check, lint, the unit and integration suites (SQLite and PostgreSQL,
# a real OpenSSH server, real Chromium) and the requirements-coverage check.
# Starts a throwaway PostgreSQL cluster on a loopback port and removes it afterwards.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/test-services.sh
source scripts/static-checks.sh
# Every Node process the suites start (`opsgate serve`, the CLI, MCP servers, the Inspector) compiles
# the same modules: Node's on-disk compile cache makes each start after the first cheaper (a serve
# start ~2.6 → ~1.8 CPU-s). Node checks each entry against the source, so a stale cache is harmless.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$root/node_modules/.cache/node-compile-cache}"
ensure_system_packages
mkdir -p test-results
# Type check, lint, knip and the doc checks need no service and read no test result: they run at low
# priority beside the cluster start and the tests (which wait on browsers, sshd and PostgreSQL much of
# the time) and report after the tests.
start_static_checks test-results/static-checks
start_postgres
trap 'stop_static_checks; stop_postgres' EXIT

# The suites of the files under a coverage floor run once, in the coverage run at the end, not twice.
coverage_floor_suites=(src/core/tools/ src/core/policy/ src/agents/sandbox/bridge/orchestrator.state-pollution.test.ts
  src/agents/sandbox/tools/sandbox-tools.scoping.test.ts)
not_coverage_floor_suites=()
for suite in "${coverage_floor_suites[@]}"; do
  case "$suite" in */) not_coverage_floor_suites+=("--exclude=$suite**") ;; *) not_coverage_floor_suites+=("--exclude=$suite") ;; esac
done
echo "== tests (vitest)"
set +e
vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "${not_coverage_floor_suites[@]}" "$@"
status=$?
echo "== branch coverage floors (registry, policy, sandbox bridge: >= 90 % each file)"
vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest-coverage-floors.json \
  --coverage --coverage.reporter=text --coverage.thresholds.branches=90 --coverage.thresholds.perFile=true \
  --coverage.include=src/core/tools/tool-registry.ts --coverage.include=src/core/policy/policy.ts \
  --coverage.include=src/core/policy/approval-binding.ts --coverage.include=src/agents/sandbox/bridge/db-bridge.ts \
  "${coverage_floor_suites[@]}"
coverage_status=$?
set -e
summary() {
  node -e '
    const reports = ["vitest.json", "vitest-coverage-floors.json"].map((name) => require(`./test-results/${name}`));
    const sum = (key) => reports.reduce((total, report) => total + report[key], 0);
    console.log(`${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests") + sum("numTodoTests")} skipped`);
  ' 2>/dev/null || echo "0 passed, 1 failed"
}
finish_static_checks || { summary; exit 1; }
if [ "$status" -ne 0 ] || [ "$coverage_status" -ne 0 ]; then summary; exit 1; fi
echo "== requirements coverage: did a mapped test of each requirement run?"
node scripts/check-requirements-coverage.ts --ran test-results/vitest.json test-results/vitest-coverage-floors.json
summary
