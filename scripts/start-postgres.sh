#!/usr/bin/env bash
# Throwaway PostgreSQL for the catalog tests, from Debian's packages (no system service used).
#
#   scripts/start-postgres.sh [DIR]     initdb into DIR (default: a new /tmp/pitlake-pg.XXXXXX),
#                                       start on 127.0.0.1 at a free port, create the database,
#                                       print its SQLAlchemy URL on stdout.
#   scripts/start-postgres.sh --stop DIR    stop that cluster and delete DIR.
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user (or a
# dedicated `pitlake-pg` user when that does not exist). Logs: DIR/postgres.log.
set -euo pipefail

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bindir="$d"
done
if [ -z "$bindir" ] && command -v pg_config >/dev/null 2>&1; then
  d="$(pg_config --bindir)"
  [ -x "$d/initdb" ] && bindir="$d"
fi
if [ -z "$bindir" ]; then
  echo "start-postgres: no PostgreSQL server binaries (apt-get install postgresql)" >&2
  exit 3
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

owner="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  if id postgres >/dev/null 2>&1; then
    owner=postgres
  else
    owner=pitlake-pg
    id "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
  fi
fi

if [ "${1:-}" = "--stop" ]; then
  dir="${2:?usage: start-postgres.sh --stop DIR}"
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  case "$dir" in
    /tmp/*) rm -rf -- "$dir" ;;
    *) echo "start-postgres: not deleting $dir (outside /tmp)" >&2 ;;
  esac
  exit 0
fi

dir="${1:-$(mktemp -d /tmp/pitlake-pg.XXXXXX)}"
mkdir -p "$dir"
chmod 700 "$dir"
[ "$(id -u)" -eq 0 ] && chown "$owner" "$dir"

free_port() {
  local py
  py="$(command -v python3 || true)"
  [ -n "$py" ] || py="$(dirname "$0")/../.venv/bin/python"
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
port="$(free_port)"
user=pitlake
db=pitlake_test

as_owner "$bindir/initdb" -D "$dir/data" -U "$user" --auth=trust --encoding=UTF8 --no-locale \
  >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off" \
  start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U "$user" "$db"

echo "postgresql+psycopg://$user@127.0.0.1:$port/$db"
