#!/usr/bin/env bash
# Builds the web UI (src/web) into src/web/dist when the sources are newer than the last build.
# The UI imports from src/core (approval titles, chat decision words, text helpers, types), so a
# change anywhere there counts; listing single files missed approval-title.ts and chat-decisions.ts.
# `--force` rebuilds regardless. Nothing built is committed; serve and test call this script.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
stamp="src/web/dist/index.html"
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] \
  && [ -z "$(find src/web/src src/web/index.html src/web/vite.config.ts src/core -newer "$stamp" -type f 2>/dev/null | head -1)" ]; then
  exit 0
fi
echo "opsgate: building the web UI (vite) ..." >&2
node node_modules/vite/bin/vite.js build --config src/web/vite.config.ts >&2
