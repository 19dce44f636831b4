#!/usr/bin/env bash
# A Citus cluster for tests and benchmarks: a coordinator and two workers (PostgreSQL 15 with the citus extension) on
# loopback, under .data/citus, built from the Citus source the workplace provides (../shared/citus: build.sh,
# cluster.sh; CITUS_SOURCE_DIR for another place). Usage: scripts/citus.sh start|stop|status|url|workers|source
#   start    builds Citus into PostgreSQL 15 when it is not there (about a minute), starts the three nodes on three
#            consecutive free ports (chosen at the first start, kept in .data/citus.port) and prints the coordinator's
#            URL; the workers are ports +1 and +2 (`workers` prints them as host:port,host:port)
#   source   prints the folder of the Citus source, or fails when there is none
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CITUS_DIR:-$PWD/.data/citus}

source_dir() {
  for candidate in "${CITUS_SOURCE_DIR:-}" "$PWD/../shared/citus" /work/shared/citus; do
    if [ -n "$candidate" ] && [ -x "$candidate/cluster.sh" ] && [ -x "$candidate/build.sh" ]; then
      echo "$candidate"; return 0
    fi
  done
  echo "No Citus source found (looked in CITUS_SOURCE_DIR, ../shared/citus and /work/shared/citus)." >&2
  return 1
}

listening() {
  node -e 'const s = require("net").connect(Number(process.argv[1]), "127.0.0.1");
    s.on("connect", () => process.exit(0)); s.on("error", () => process.exit(1));' "$1"
}

# The coordinator's port: the one kept from the first start, else the first of three consecutive free ports.
base_port() {
  if [ -s "$dir.port" ]; then cat "$dir.port"; return; fi
  for _ in $(seq 1 50); do
    p=$(node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
    [ "$p" -lt 65000 ] || continue
    if ! listening "$p" && ! listening $((p + 1)) && ! listening $((p + 2)); then echo "$p"; return; fi
  done
  echo "no three consecutive free ports found" >&2; return 1
}

case "${1:-}" in
  start)
    src=$(source_dir)
    port=$(base_port)
    mkdir -p "$(dirname "$dir")"
    if ! "$0" status >/dev/null 2>&1; then
      for p in $port $((port + 1)) $((port + 2)); do
        if listening "$p"; then
          echo "Port $p on 127.0.0.1 is in use by another program, so the Citus cluster in $dir cannot start there." >&2
          echo "Stop that program, or delete $dir.port to get free ports." >&2
          exit 1
        fi
      done
    fi
    echo "$port" > "$dir.port"
    # Building Citus (cluster.sh's first start) installs PostgreSQL 15's server headers, which can upgrade PostgreSQL 15
    # itself under the private cluster (scripts/postgres.sh): restarted then, or it fails to load its libraries.
    built=true; [ -f /usr/lib/postgresql/15/lib/citus.so ] || built=false
    "$src/cluster.sh" start "$dir" "$port"
    if [ "$built" = false ]; then scripts/postgres.sh restart >&2; fi
    ;;
  stop)
    if [ -s "$dir.port" ] && src=$(source_dir 2>/dev/null); then "$src/cluster.sh" stop "$dir" "$(cat "$dir.port")"; fi
    ;;
  status)
    [ -s "$dir.port" ] && listening "$(cat "$dir.port")"
    ;;
  url)
    echo "postgres://postgres@127.0.0.1:$(base_port)/postgres"
    ;;
  workers)
    port=$(base_port); echo "127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))"
    ;;
  source)
    source_dir
    ;;
  *)
    echo "usage: $0 start|stop|status|url|workers|source" >&2
    exit 2
    ;;
esac
