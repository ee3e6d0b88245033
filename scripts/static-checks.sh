# Sourced by scripts/test.sh: the checks that read only the sources (types, lint, knip, the doc
# claims, the requirements map), started together in the background at low priority so they use the
# CPU the test suites leave idle, and reported once the tests are done.

# Pairs of what is checked and the command that checks it; the order of their reports.
static_checks=(
  "type check (tsc)" "tsc -p tsconfig.json"
  "lint (biome)" "biome check --diagnostic-level=error src test bench scripts eval examples"
  "unused files, dependencies, exports and types (knip; kept exceptions and their reasons in knip.jsonc)" "knip"
  "doc claims (paths, quotes, npm scripts)" "node scripts/doc-claims.ts"
  "requirements coverage" "node scripts/check-requirements-coverage.ts"
)
static_check_pids=()

# Starts every check; each writes its output to DIR/N.log.
start_static_checks() {
  static_checks_dir="$1"
  rm -rf "$static_checks_dir"
  mkdir -p "$static_checks_dir"
  echo "== type check, lint, knip, doc claims, requirements coverage: running beside the tests, reported after them"
  local i
  for ((i = 0; i < ${#static_checks[@]}; i += 2)); do
    nice -n 10 bash -c "${static_checks[i + 1]}" >"$static_checks_dir/$i.log" 2>&1 &
    static_check_pids+=("$!")
  done
}

# Waits for every check, prints each one's output under its heading; fails when any check failed.
finish_static_checks() {
  local i failed=0 status
  for ((i = 0; i < ${#static_checks[@]}; i += 2)); do
    status=0
    wait "${static_check_pids[i / 2]}" || status=$?
    echo "== ${static_checks[i]}"
    cat "$static_checks_dir/$i.log"
    if [ "$status" -ne 0 ]; then
      echo "== ${static_checks[i]} FAILED (exit $status)"
      failed=1
    fi
  done
  static_check_pids=()
  return "$failed"
}

# Ends the checks still running (the script stopped early).
stop_static_checks() {
  if [ "${#static_check_pids[@]}" -gt 0 ]; then kill "${static_check_pids[@]}" 2>/dev/null || true; fi
}
