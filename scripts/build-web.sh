#!/usr/bin/env bash
# Builds the web UI (src/web) into src/web/dist when the sources are newer than the last build.
# The sources outside src/web are the core files the UI imports (scripts/web-sources.ts follows the
# imports). `--force` rebuilds regardless. Nothing built is committed; serve and test call this script.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
stamp="src/web/dist/index.html"
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] \
  && [ -z "$(find src/web/src src/web/index.html src/web/vite.config.ts $(node scripts/web-sources.ts) -newer "$stamp" -type f 2>/dev/null | head -1)" ]; then
  exit 0
fi
echo "opsgate: building the web UI (vite) ..." >&2
node node_modules/vite/bin/vite.js build --config src/web/vite.config.ts >&2
