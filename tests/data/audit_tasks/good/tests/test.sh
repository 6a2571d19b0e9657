#!/bin/bash
# Reward 1 when answer.txt holds "ok".
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
if [ "$(cat "$WORKDIR/answer.txt" 2>/dev/null)" = "ok" ]; then
    echo "PASS: answer.txt holds ok"
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo "FAIL: answer.txt is missing or holds: $(cat "$WORKDIR/answer.txt" 2>/dev/null)"
    echo 0 > "$REWARD_DIR/reward.txt"
fi
