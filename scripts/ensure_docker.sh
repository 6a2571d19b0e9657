#!/usr/bin/env bash
# Make sure a Docker engine runs and the agentcompass base image exists. Idempotent.
#
#   scripts/ensure_docker.sh            engine + base image
#   AGENTCOMPASS_BASE_IMAGE=name:tag    base image to ensure (default agentcompass/base:bookworm)
#   AGENTCOMPASS_DEBIAN_MIRROR=url      debootstrap mirror (default http://deb.debian.org/debian)
#
# Steps: when `docker info` fails, install docker.io + debootstrap if missing (apt-get), start dockerd in the
# background (log: /var/log/dockerd.log; storage driver overlay2, falling back to vfs), wait up to 60 s.
# Then the base image: present -> nothing; else `docker pull`; else build it with the package's own offline
# builder (`agentcompass images build-base`: debootstrap + `docker import`, root file system cached in the data dir).
# Exits non-zero with one clear line on stderr when it cannot.
set -euo pipefail

BASE_IMAGE="${AGENTCOMPASS_BASE_IMAGE:-agentcompass/base:bookworm}"
MIRROR="${AGENTCOMPASS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE="bookworm"
DOCKERD_LOG="/var/log/dockerd.log"
WAIT_S=60

log() { echo "ensure_docker: $*" >&2; }
die() { echo "ensure_docker: ERROR: $*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        die "need root to run: $* (run this script as root or install sudo)"; fi
}

engine_up() { docker info >/dev/null 2>&1; }

install_packages() {
    local missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v docker >/dev/null || missing+=(docker.io)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    log "installing ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
        || die "apt-get update failed (no network?)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null \
        || die "apt-get install docker.io debootstrap failed"
}

wait_engine() {  # wait_engine PID: 0 when the engine answers, 1 when dockerd died or time ran out
    local pid="$1" i
    for ((i = 0; i < WAIT_S * 2; i++)); do
        engine_up && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.5
    done
    return 1
}

start_dockerd() {  # start_dockerd DRIVER
    local driver="$1"
    log "starting dockerd (storage driver $driver, log $DOCKERD_LOG)"
    # 9>&-: the daemon must not inherit the lock of this script (it would hold it forever).
    as_root bash -c "nohup dockerd --storage-driver=$driver >>$DOCKERD_LOG 2>&1 </dev/null 9>&- &
        echo \$! >/var/run/agentcompass-dockerd.pid" 9>&-
    cat /var/run/agentcompass-dockerd.pid
}

stop_dockerd() {
    local pid="$1" i
    as_root kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    as_root kill -9 "$pid" 2>/dev/null || true
}

ensure_engine() {
    engine_up && return 0
    install_packages
    # A dockerd that is already starting (pid file of the engine itself): give it the same wait.
    if [ -s /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
        log "dockerd is running but not answering yet; waiting"
        wait_engine "$(cat /var/run/docker.pid)" && return 0
        die "dockerd (pid $(cat /var/run/docker.pid)) does not answer after ${WAIT_S}s; see $DOCKERD_LOG"
    fi
    local pid
    pid="$(start_dockerd overlay2)"
    wait_engine "$pid" && return 0
    log "dockerd with overlay2 did not come up; retrying with vfs (last log lines below)"
    tail -n 5 "$DOCKERD_LOG" >&2 || true
    stop_dockerd "$pid"
    pid="$(start_dockerd vfs)"
    wait_engine "$pid" && return 0
    tail -n 20 "$DOCKERD_LOG" >&2 || true
    die "the Docker engine could not be started (overlay2 and vfs both failed); see $DOCKERD_LOG"
}

build_base_image() {  # the package's own builder (agentcompass images build-base): one implementation
    command -v debootstrap >/dev/null || install_packages
    log "building $BASE_IMAGE with debootstrap ($SUITE from $MIRROR; takes a few minutes)"
    python3 -m agentcompass images build-base --tag "$BASE_IMAGE" --mirror "$MIRROR" >/dev/null \
        || die "agentcompass images build-base failed for $BASE_IMAGE (is agentcompass installed? pip install -e .)"
    log "built $BASE_IMAGE"
}

ensure_base_image() {
    docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && return 0
    log "base image $BASE_IMAGE missing; trying docker pull"
    if timeout 120 docker pull "$BASE_IMAGE" >/dev/null 2>&1; then
        log "pulled $BASE_IMAGE"; return 0
    fi
    log "cannot pull $BASE_IMAGE; building it"
    build_base_image
    docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 || die "base image $BASE_IMAGE still missing after build"
}

main() {
    # One run at a time on this machine (parallel test sessions, CI steps).
    exec 9>/tmp/agentcompass-ensure-docker.flock
    command -v flock >/dev/null && flock 9
    command -v docker >/dev/null || install_packages
    ensure_engine
    ensure_base_image
    log "ok: engine $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'), image $BASE_IMAGE"
}

main "$@"
