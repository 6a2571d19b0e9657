#!/usr/bin/env bash
# Reference packages for the agreement tests, each in its own virtual environment (they pin other versions than
# ours, or need another Python). Idempotent: a venv whose marker file exists is left alone.
#
#   scripts/ensure_reference.sh              every reference venv
#   scripts/ensure_reference.sh harbor       only the named ones
#
# Location: $AGENTCOMPASS_REFERENCE_DIR (default ~/.cache/agentcompass/reference)/<name>; the tests find them
# there (agentcompass.testing.reference.reference_python). Exits non-zero with one clear line when it cannot.
set -euo pipefail

REF_DIR="${AGENTCOMPASS_REFERENCE_DIR:-$HOME/.cache/agentcompass/reference}"

log() { echo "ensure_reference: $*" >&2; }
die() { echo "ensure_reference: ERROR: $*" >&2; exit 1; }

# name | python (a version prefix looked up in pyenv, else on PATH) | pip requirements
REFERENCES=(
    "harbor|3.12|harbor==0.26.0"
    "swebench4|3.11|swebench==4.1.0"
    "terminal-bench|3.12|terminal-bench==0.2.18"
    "tau2|3.12|tau2-bench-a2c0247.tar.gz"    # tau2 1.0.1 from the snapshot in shared/data (not on PyPI)
)

# Test data that cannot be downloaded here (shared/data beside the repository, or $AGENTCOMPASS_SHARED_DATA)
SHARED_DATA="${AGENTCOMPASS_SHARED_DATA:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}"

find_python() {  # find_python 3.12 -> an interpreter of that version
    local want="$1" p
    for p in /root/.pyenv/versions/"$want".*/bin/python "$HOME"/.pyenv/versions/"$want".*/bin/python; do
        [ -x "$p" ] && { echo "$p"; return 0; }
    done
    command -v "python$want" >/dev/null && { command -v "python$want"; return 0; }
    p="$(command -v python3 || true)"
    if [ -n "$p" ] && "$p" -c "import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)"; then
        echo "$p"; return 0
    fi
    return 1
}

ensure_one() {  # ensure_one NAME PYVER REQS
    local name="$1" pyver="$2" reqs="$3" dir="$REF_DIR/$1" py
    local marker="$dir/.agentcompass-ready"
    if [ -f "$marker" ] && [ "$(cat "$marker")" = "$reqs" ]; then return 0; fi
    py="$(find_python "$pyver")" || die "reference '$name' needs Python $pyver (none found in pyenv or on PATH)"
    log "creating $dir (Python $pyver: $reqs)"
    rm -rf "$dir"
    mkdir -p "$REF_DIR"
    "$py" -m venv "$dir" || die "could not create the venv $dir"
    if [[ "$reqs" == *.tar.gz ]]; then   # a source snapshot of shared/data: unpacked beside the venv, installed
        [ -f "$SHARED_DATA/$reqs" ] || die "reference '$name' needs $SHARED_DATA/$reqs (test data in shared/data)"
        mkdir -p "$dir/src"
        tar -xzf "$SHARED_DATA/$reqs" -C "$dir/src" || die "could not unpack $SHARED_DATA/$reqs"
        "$dir/bin/python" -m pip install -q --disable-pip-version-check "$dir/src/${reqs%.tar.gz}" \
            || die "pip install of $reqs into $dir failed"
    else
        # shellcheck disable=SC2086
        "$dir/bin/python" -m pip install -q --disable-pip-version-check $reqs \
            || die "pip install $reqs into $dir failed"
    fi
    echo "$reqs" > "$marker"
}

want=("$@")
for entry in "${REFERENCES[@]}"; do
    IFS='|' read -r name pyver reqs <<< "$entry"
    if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
    ensure_one "$name" "$pyver" "$reqs"
done
