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
# headless Chromium for the viewer's browser tests (Debian's packages; Selenium drives it)
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "test.sh: installing chromium chromium-driver" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# pyenv installs: make sure its shims exist (an interrupted `pyenv rehash` can leave them empty), so python3
# is the interpreter the user chose and not the system one.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash >/dev/null 2>&1 || true; hash -r; fi
python3 -c 'import sys; assert sys.version_info >= (3, 11, 4), sys.version' \
    || { echo "test.sh: Python 3.11.4+ is required, python3 is $(python3 --version 2>&1)" >&2; exit 1; }
pip_install() {
    python3 -m pip install -q --disable-pip-version-check "$@" 2>/tmp/agentcompass-pip.err && return 0
    if grep -q externally-managed /tmp/agentcompass-pip.err; then   # a distribution's Python (PEP 668)
        python3 -m pip install -q --disable-pip-version-check --break-system-packages "$@" && return 0
    fi
    cat /tmp/agentcompass-pip.err >&2
    return 1
}
pip_install -e '.[test,agreement,compose,terminus2]'
pip_install --no-deps 'bfcl-eval==2026.3.23'   # the [bfcl] extra's package, without its heavy dependencies
pip_install --no-deps 'agentdojo==0.1.35'      # AgentDojo without langchain (never imported); its imports: [test]

# lint, format and types before the tests (configured in pyproject.toml): a finding fails CI
python3 -m ruff check .
python3 -m ruff format --check .
python3 -m mypy
python3 scripts/generate.py --check   # docs/options.md and the SDK stub agree with the options table

bash scripts/ensure_reference.sh   # reference packages of the agreement tests, each in its own venv

bash scripts/ensure_docker.sh

# the agent programs' builds (Claude Code's is about 400 MB), fetched once into the session-wide agent cache that
# the agent harness tests use (integrity-checked against the registries' hashes; kept between runs on one machine).
# aider and openhands: a Python built from Debian's packages plus the agent's wheel set, the first time only (aider
# about 720 MB in 2 min, openhands about 580 MB in 5 min on 2 cores; docs/aider.md, docs/openhands.md)
export AGENTCOMPASS_AGENT_CACHE="${AGENTCOMPASS_AGENT_CACHE:-$HOME/.cache/agentcompass}"
for agent in claude_code codex opencode qwen_code gemini_cli pi cline kilo aider openhands; do
    python3 -m agentcompass.harnesses._installed fetch "$agent" --data-dir "$AGENTCOMPASS_AGENT_CACHE" >/dev/null \
        || echo "test.sh: could not fetch the $agent build (its tests will try again)" >&2
done

python3 -m pytest "$@"
