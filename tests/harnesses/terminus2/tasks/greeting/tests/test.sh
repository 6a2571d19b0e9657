#!/bin/bash
# Reward 1 when greeting.txt holds exactly "hi from terminus" and seed.txt is still there, else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
if [ "$(cat "$WORKDIR/greeting.txt" 2>/dev/null)" = "hi from terminus" ] && [ -f "$WORKDIR/seed.txt" ]; then
    echo "PASS"
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo "FAIL: greeting.txt missing or wrong"
    echo 0 > "$REWARD_DIR/reward.txt"
fi
