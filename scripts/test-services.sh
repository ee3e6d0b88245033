# Sourced by scripts/test.sh: system packages and throwaway services for the test suites.

# Installs what the real-system suites need when missing and the machine allows it (root + apt).
ensure_system_packages() {
  local missing=()
  command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  [ -x /usr/lib/postgresql/15/bin/initdb ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  if [ "${#missing[@]}" -eq 0 ]; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing system packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "== missing system packages (${missing[*]}); the suites that need them will be skipped" >&2
  fi
}

pg_bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

start_postgres() {
  if [ -n "${OPSGATE_TEST_DATABASE_URL:-}" ]; then return 0; fi
  local bin; bin="$(pg_bin_dir)"
  if [ -z "$bin" ]; then echo "== PostgreSQL not installed; PostgreSQL suites will be skipped" >&2; return 0; fi
  PG_TMP="$(mktemp -d /tmp/opsgate-pg.XXXXXX)"
  chmod 755 "$PG_TMP"
  local runas=()
  if [ "$(id -u)" = 0 ]; then chown postgres "$PG_TMP"; runas=(runuser -u postgres --); fi
  "${runas[@]}" "$bin/initdb" -D "$PG_TMP/data" -U opsgate --auth=trust -E UTF8 >/dev/null
  # A port below Linux's ephemeral range (32768-60999), where any connection's client side may sit;
  # another cluster may still hold it, so a failed start tries another.
  local port attempt
  for attempt in 1 2 3 4 5; do
    port=$(( 20000 + RANDOM % 12000 ))
    if "${runas[@]}" "$bin/pg_ctl" -D "$PG_TMP/data" -o "-p $port -k $PG_TMP -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" -w -l "$PG_TMP/log" start >/dev/null; then break; fi
    if [ "$attempt" = 5 ]; then echo "== PostgreSQL did not start (see $PG_TMP/log)" >&2; return 1; fi
  done
  export OPSGATE_TEST_DATABASE_URL="postgres://opsgate@127.0.0.1:$port/postgres"
  echo "== PostgreSQL throwaway cluster on 127.0.0.1:$port"
}

stop_postgres() {
  if [ -n "${PG_TMP:-}" ] && [ -d "$PG_TMP" ]; then
    local bin; bin="$(pg_bin_dir)"
    local runas=()
    if [ "$(id -u)" = 0 ]; then runas=(runuser -u postgres --); fi
    "${runas[@]}" "$bin/pg_ctl" -D "$PG_TMP/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PG_TMP"
  fi
}
