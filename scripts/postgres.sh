#!/usr/bin/env bash
# Starts (or stops) a private PostgreSQL 15 cluster for tests and benchmarks, on loopback only.
# Usage: scripts/postgres.sh start|stop|status|url    Environment: PG_DIR (default .data/postgres), PG_PORT (default 55432),
#          PG_SHARED_BUFFERS (1GB), PG_MAX_WAL_SIZE (4GB: bulk loads write gigabytes of WAL; at 1GB they checkpoint constantly)
#        scripts/postgres.sh replica-start|replica-reset|replica-stop|replica-url
#          A streaming read replica of that cluster, made with pg_basebackup (PG_REPLICA_DIR, PG_REPLICA_PORT 55433).
set -euo pipefail
cd "$(dirname "$0")/.."
PG_DIR=${PG_DIR:-$PWD/.data/postgres}
PG_PORT=${PG_PORT:-55432}
PG_REPLICA_DIR=${PG_REPLICA_DIR:-$PWD/.data/postgres-replica}
PG_REPLICA_PORT=${PG_REPLICA_PORT:-55433}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$BIN" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    mkdir -p "$(dirname "$PG_DIR")"
    if [ ! -s "$PG_DIR/PG_VERSION" ]; then
      mkdir -p "$PG_DIR"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
      as_owner "$BIN/initdb" --auth=trust --username=postgres --encoding=UTF8 -D "$PG_DIR" >/dev/null
    fi
    if ! as_owner "$BIN/pg_ctl" -D "$PG_DIR" status >/dev/null 2>&1; then
      as_owner "$BIN/pg_ctl" -D "$PG_DIR" -l "$PG_DIR/server.log" -w \
        -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_DIR -c max_connections=200 -c fsync=on -c shared_buffers=${PG_SHARED_BUFFERS:-1GB} -c max_wal_size=${PG_MAX_WAL_SIZE:-4GB}" start >/dev/null
    fi
    echo "postgres://postgres@127.0.0.1:$PG_PORT/postgres"
    ;;
  stop)
    as_owner "$BIN/pg_ctl" -D "$PG_DIR" -m fast stop >/dev/null 2>&1 || true
    ;;
  url)
    echo "postgres://postgres@127.0.0.1:$PG_PORT/postgres"
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
      as_owner "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$PG_REPLICA_DIR" -R -X stream -c fast
    fi
    if ! as_owner "$BIN/pg_ctl" -D "$PG_REPLICA_DIR" status >/dev/null 2>&1; then
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
    echo "postgres://postgres@127.0.0.1:$PG_REPLICA_PORT/postgres"
    ;;
  *)
    echo "usage: $0 start|stop|status|url|replica-start|replica-reset|replica-stop|replica-url" >&2
    exit 2
    ;;
esac
