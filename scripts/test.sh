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
biome check --diagnostic-level=error src test bench scripts
echo "== requirements coverage"
node scripts/check-requirements-coverage.ts
echo "== tests (vitest)"
vitest run "$@"
