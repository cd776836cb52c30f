#!/usr/bin/env bash
# Makes sure what `npm test` talks to is up on loopback: PostgreSQL (database `test`) and Redis on
# their standard ports, plus tmux and Chromium for the terminal and browser tests.
#
#   bash scripts/test-services.sh            (run by `npm test` first): starts a server that is
#                                            installed but down; never installs; a server it cannot
#                                            start is reported and its tests skip (fail under CI=true)
#   bash scripts/test-services.sh --install  (run by .ci/run): also installs what is missing with apt,
#                                            and fails when anything is not ready
set -uo pipefail

install=0
[[ "${1:-}" == "--install" ]] && install=1
READY_TIMEOUT_SECONDS=60

log() { printf '[services] %s\n' "$*"; }

# Runs "$@" until it succeeds, at most READY_TIMEOUT_SECONDS.
wait_until() {
  local what=$1
  shift
  local deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "$what is not ready after ${READY_TIMEOUT_SECONDS}s"
      return 1
    fi
    sleep 1
  done
}

apt_updated=0
apt_install() {
  if ((apt_updated == 0)); then
    DEBIAN_FRONTEND=noninteractive apt-get update
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

# Installs the Debian packages "$2…" when command $1 is missing (with --install), else reports it.
need() {
  local command=$1
  shift
  command -v "$command" >/dev/null && return 0
  if ((install == 1)); then
    log "$command is missing: installing $*"
    apt_install "$@"
  else
    log "$command is not installed: the tests that need it skip (see docs/architecture/repository.md#tests)"
    return 1
  fi
}

pg_up() { pg_isready -h 127.0.0.1 -p 5432; }
pg_connects() { psql -h 127.0.0.1 -U postgres -d postgres -tAc 'SELECT 1'; }
redis_up() { [[ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == "PONG" ]]; }

ensure_postgres() {
  need pg_isready postgresql || return 1
  if ! pg_up >/dev/null 2>&1; then
    need pg_ctlcluster postgresql || return 1
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    log "starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  fi
  wait_until "PostgreSQL" pg_up || return 1
  if ! pg_connects >/dev/null 2>&1; then
    # A fresh Debian install asks for a password on 127.0.0.1; the tests connect as postgres without one.
    local hba
    hba=$(ls /etc/postgresql/*/main/pg_hba.conf | sort -V | tail -n 1)
    log "allowing trust auth for postgres on loopback in $hba"
    sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba" || return 1
    su postgres -c "psql -tAc 'SELECT pg_reload_conf()'" >/dev/null || return 1
    wait_until "PostgreSQL login" pg_connects || return 1
  fi
  if [[ "$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'")" != "1" ]]; then
    log "creating database test"
    createdb -h 127.0.0.1 -U postgres test || return 1
  fi
  log "PostgreSQL is ready"
}

ensure_redis() {
  need redis-cli redis-server || return 1
  if ! redis_up; then
    need redis-server redis-server || return 1
    log "starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/tests.log || return 1
  fi
  wait_until "Redis" redis_up || return 1
  log "Redis is ready"
}

ensure_tools() {
  local ok=0
  # The demo CLI's terminal tests drive it under tmux.
  need tmux tmux || ok=1
  # The browser tests drive headless Chromium; the CJK font keeps the Chinese screenshots readable.
  if [[ ! -x /usr/bin/chromium ]]; then
    if ((install == 1)); then
      log "Chromium is missing: installing it"
      apt_install chromium fonts-wqy-microhei
    else
      log "/usr/bin/chromium is missing: the browser tests skip"
      ok=1
    fi
  fi
  return $ok
}

failed=0
ensure_postgres || failed=1
ensure_redis || failed=1
ensure_tools || failed=1
if ((failed == 1 && install == 1)); then
  log "a service the tests need is not ready"
  exit 1
fi
exit 0
