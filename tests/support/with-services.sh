#!/usr/bin/env bash
# Runs a command with Redis and PostgreSQL reachable.
#
# Uses the ones already listening on 127.0.0.1:6379 / :5432 when they answer;
# otherwise starts throwaway servers on free ports (installing them with apt-get
# when that is allowed) and removes them afterwards. Exports NEURALIS_TEST_REDIS_URL
# and NEURALIS_TEST_DATABASE_URL for the integration tests.
set -euo pipefail

log() { printf 'with-services: %s\n' "$*" >&2; }
cleanup_cmds=()
cleanup() { for c in "${cleanup_cmds[@]}"; do eval "$c" || true; done; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

ensure_pkg() { # $1 command, $2 debian package
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing $2"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2") >/dev/null
  fi
  command -v "$1" >/dev/null 2>&1
}

redis_up() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf 'PING\r\n' >&3 && head -c 5 <&3" 2>/dev/null | grep -q PONG; }

if [ -z "${NEURALIS_TEST_REDIS_URL:-}" ]; then
  if redis_up 6379; then
    export NEURALIS_TEST_REDIS_URL="redis://127.0.0.1:6379"
  elif ensure_pkg redis-server redis-server; then
    port=$(free_port); dir=$(mktemp -d)
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" >/dev/null
    cleanup_cmds+=("kill \$(cat $dir/redis.pid); rm -rf $dir")
    for _ in $(seq 50); do redis_up "$port" && break; sleep 0.1; done
    export NEURALIS_TEST_REDIS_URL="redis://127.0.0.1:$port"
    log "started throwaway redis on $port"
  else
    log "redis is not reachable on 127.0.0.1:6379 and redis-server cannot be installed: the Redis tests will fail"
  fi
fi

# The fault tests start and stop a throwaway redis-server of their own, even when a
# shared Redis already answers.
ensure_pkg redis-server redis-server || log "redis-server is not installed and cannot be: the Redis fault test will fail"

pg_try() { psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }
if [ -z "${NEURALIS_TEST_DATABASE_URL:-}" ]; then
  found=""
  if command -v psql >/dev/null 2>&1; then
    for u in postgres root; do
      url="postgres://$u@127.0.0.1:5432/test"
      if pg_try "$url"; then found="$url"; break; fi
    done
  fi
  if [ -n "$found" ]; then
    export NEURALIS_TEST_DATABASE_URL="$found"
  elif ensure_pkg psql postgresql && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    port=$(free_port); dir=$(mktemp -d); chmod 777 "$dir"
    runas=(); [ "$(id -u)" = 0 ] && runas=(runuser -u postgres --)
    "${runas[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
    "${runas[@]}" "$bin/pg_ctl" -D "$dir/data" -o "-p $port -k $dir -c listen_addresses=127.0.0.1" -l "$dir/log" -w start >/dev/null
    cleanup_cmds+=("${runas[*]} $bin/pg_ctl -D $dir/data -m immediate stop >/dev/null; rm -rf $dir")
    "${runas[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres test
    export NEURALIS_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/test"
    log "started throwaway postgresql on $port"
  else
    log "postgresql is not reachable on 127.0.0.1:5432 and cannot be installed: the PostgreSQL tests will fail"
  fi
fi

log "redis=${NEURALIS_TEST_REDIS_URL:-none} postgres=${NEURALIS_TEST_DATABASE_URL:-none}"
"$@"
