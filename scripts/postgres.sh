#!/usr/bin/env bash
# Starts (or stops) a private PostgreSQL 15 cluster for tests and benchmarks, on loopback only.
# Usage: scripts/postgres.sh start|stop|status|url    Environment: PG_DIR (default .data/postgres), PG_PORT (default: a
#          free port, chosen at the first start and kept in $PG_DIR.port, so that two checkouts, or a test run beside a
#          benchmark's cluster, never collide), PG_SHARED_BUFFERS (1GB), PG_MAX_WAL_SIZE (4GB: bulk loads write
#          gigabytes of WAL; at 1GB they checkpoint constantly)
#        scripts/postgres.sh restart: restarts the cluster, and its replica, where they run (after PostgreSQL 15's
#          packages were upgraded under them, as building Citus may do: scripts/citus.sh)
#        scripts/postgres.sh replica-start|replica-reset|replica-stop|replica-url
#          A streaming read replica of that cluster, made with pg_basebackup (PG_REPLICA_DIR, PG_REPLICA_PORT: the same).
set -euo pipefail
cd "$(dirname "$0")/.."
PG_DIR=${PG_DIR:-$PWD/.data/postgres}
PG_REPLICA_DIR=${PG_REPLICA_DIR:-$PWD/.data/postgres-replica}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$BIN" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Exit status 0 when something listens on 127.0.0.1:$1.
listening() {
  node -e 'const s = require("net").connect(Number(process.argv[1]), "127.0.0.1");
    s.on("connect", () => process.exit(0)); s.on("error", () => process.exit(1));' "$1"
}

# The port of the cluster in $1: $2 when given, else the one it runs on, else the one it was last started on (kept in
# $1.port, outside the data directory, which pg_basebackup copies), else a free one.
port_of() {
  local dir=$1 given=$2
  if [ -n "$given" ]; then echo "$given"; return; fi
  if [ -s "$dir/postmaster.pid" ]; then sed -n 4p "$dir/postmaster.pid"; return; fi
  if [ -s "$dir.port" ]; then cat "$dir.port"; return; fi
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# Refuses, naming the port, when another program holds it.
refuse_port_in_use() {
  if listening "$1"; then
    echo "Port $1 on 127.0.0.1 is in use by another program, so the cluster in $2 cannot start there." >&2
    echo "Stop that program, or choose another port with $3=<port> (or delete $2.port to get a free one)." >&2
    exit 1
  fi
}

case "${1:-}" in
  start)
    mkdir -p "$(dirname "$PG_DIR")"
    if [ ! -s "$PG_DIR/PG_VERSION" ]; then
      mkdir -p "$PG_DIR"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
      as_owner "$BIN/initdb" --auth=trust --username=postgres --encoding=UTF8 -D "$PG_DIR" >/dev/null
    fi
    PG_PORT=$(port_of "$PG_DIR" "${PG_PORT:-}")
    if ! as_owner "$BIN/pg_ctl" -D "$PG_DIR" status >/dev/null 2>&1; then
      refuse_port_in_use "$PG_PORT" "$PG_DIR" PG_PORT
      echo "$PG_PORT" > "$PG_DIR.port"
      as_owner "$BIN/pg_ctl" -D "$PG_DIR" -l "$PG_DIR/server.log" -w \
        -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_DIR -c max_connections=200 -c fsync=on -c shared_buffers=${PG_SHARED_BUFFERS:-1GB} -c max_wal_size=${PG_MAX_WAL_SIZE:-4GB}" start >/dev/null
    fi
    echo "postgres://postgres@127.0.0.1:$PG_PORT/postgres"
    ;;
  stop)
    as_owner "$BIN/pg_ctl" -D "$PG_DIR" -m fast stop >/dev/null 2>&1 || true
    ;;
  url)
    echo "postgres://postgres@127.0.0.1:$(port_of "$PG_DIR" "${PG_PORT:-}")/postgres"
    ;;
  restart)
    # A cluster left on replaced binaries fails to load its libraries ("could not access file ... plpgsql.so").
    if as_owner "$BIN/pg_ctl" -D "$PG_DIR" status >/dev/null 2>&1; then "$0" stop; "$0" start >/dev/null; fi
    if as_owner "$BIN/pg_ctl" -D "$PG_REPLICA_DIR" status >/dev/null 2>&1; then "$0" replica-stop; "$0" replica-start >/dev/null; fi
    ;;
  status)
    # Exit status 0 when the cluster runs (the test run leaves a cluster it did not start running).
    as_owner "$BIN/pg_ctl" -D "$PG_DIR" status >/dev/null 2>&1
    ;;
  replica-start)
    "$0" start >/dev/null
    if [ ! -s "$PG_REPLICA_DIR/PG_VERSION" ]; then
      rm -rf "$PG_REPLICA_DIR"
      mkdir -p "$PG_REPLICA_DIR"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_REPLICA_DIR"
      chmod 700 "$PG_REPLICA_DIR"
      # -R writes standby.signal and primary_conninfo: the copy starts as a hot standby streaming from the primary.
      as_owner "$BIN/pg_basebackup" -h 127.0.0.1 -p "$(port_of "$PG_DIR" "${PG_PORT:-}")" -U postgres -D "$PG_REPLICA_DIR" -R -X stream -c fast
    fi
    PG_REPLICA_PORT=$(port_of "$PG_REPLICA_DIR" "${PG_REPLICA_PORT:-}")
    if ! as_owner "$BIN/pg_ctl" -D "$PG_REPLICA_DIR" status >/dev/null 2>&1; then
      refuse_port_in_use "$PG_REPLICA_PORT" "$PG_REPLICA_DIR" PG_REPLICA_PORT
      echo "$PG_REPLICA_PORT" > "$PG_REPLICA_DIR.port"
      as_owner "$BIN/pg_ctl" -D "$PG_REPLICA_DIR" -l "$PG_REPLICA_DIR/server.log" -w \
        -o "-p $PG_REPLICA_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_REPLICA_DIR -c max_connections=200 -c hot_standby=on -c shared_buffers=${PG_SHARED_BUFFERS:-1GB}" start >/dev/null
    fi
    echo "postgres://postgres@127.0.0.1:$PG_REPLICA_PORT/postgres"
    ;;
  replica-reset)
    "$0" replica-stop
    rm -rf "$PG_REPLICA_DIR"
    "$0" replica-start
    ;;
  replica-stop)
    as_owner "$BIN/pg_ctl" -D "$PG_REPLICA_DIR" -m fast stop >/dev/null 2>&1 || true
    ;;
  replica-url)
    echo "postgres://postgres@127.0.0.1:$(port_of "$PG_REPLICA_DIR" "${PG_REPLICA_PORT:-}")/postgres"
    ;;
  *)
    echo "usage: $0 start|stop|restart|status|url|replica-start|replica-reset|replica-stop|replica-url" >&2
    exit 2
    ;;
esac
