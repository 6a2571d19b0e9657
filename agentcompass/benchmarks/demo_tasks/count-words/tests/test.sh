#!/bin/bash
# Reward 1 when counts.txt reads "14 102 558" (the counts of the original poem.txt), else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"

expected="14 102 558"
got="$(tr -s ' \t' ' ' < "$WORKDIR/counts.txt" 2>/dev/null | sed -e 's/^ *//' -e 's/ *$//')"
if [ "$got" = "$expected" ]; then
    echo "PASS: counts.txt = $got"
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo "FAIL: counts.txt = [$got], expected [$expected]"
    echo 0 > "$REWARD_DIR/reward.txt"
fi
