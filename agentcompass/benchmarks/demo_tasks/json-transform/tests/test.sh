#!/bin/bash
# Reward 1 when summary.json matches tests/expected.json, else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
TESTS="${AGENTCOMPASS_TESTS_DIR:-/tests}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"

if python3 "$TESTS/check_summary.py" "$WORKDIR/summary.json" "$TESTS/expected.json"; then
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo 0 > "$REWARD_DIR/reward.txt"
fi
