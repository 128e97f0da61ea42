#!/bin/sh
# Makes the cluster, its user and its database on the first start (empty $PGDATA), then runs
# PostgreSQL in the foreground. See postgres.Dockerfile.
set -eu
BIN=/usr/lib/postgresql/15/bin
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${POSTGRES_LISTEN:=*}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is not set" >&2; exit 1; }
  pw=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pw"
  "$BIN/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  "$BIN/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  [ "$POSTGRES_DB" = postgres ] || "$BIN/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
  "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  echo "made the database $POSTGRES_DB for $POSTGRES_USER"
fi
exec "$BIN/postgres" -D "$PGDATA" -c listen_addresses="$POSTGRES_LISTEN" -c port="$PGPORT"
