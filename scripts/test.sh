#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need, starts the Docker engine, runs pytest.
#   bash scripts/test.sh [pytest args...]
# Needs root for apt-get and dockerd (as CI runs). Docker tests FAIL (not skip) when CI=true and no engine starts.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for tool in tmux git patch; do command -v "$tool" >/dev/null || need_apt+=("$tool"); done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "test.sh: installing ${need_apt[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test,agreement]'

bash scripts/ensure_docker.sh

python3 -m pytest "$@"
