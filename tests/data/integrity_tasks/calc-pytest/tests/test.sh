#!/bin/bash
# Reward 1 when the hidden tests and the workspace's own tests pass, else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
TESTS="${AGENTCOMPASS_TESTS_DIR:-/tests}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
cd "$WORKDIR" || exit 0
if python3 -m pytest -q -p no:cacheprovider "$TESTS/test_outputs.py" tests/; then
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo 0 > "$REWARD_DIR/reward.txt"
fi
