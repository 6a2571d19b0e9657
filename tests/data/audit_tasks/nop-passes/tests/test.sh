#!/bin/bash
# A broken verifier: it passes whatever the agent did.
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
echo "PASS: nothing checked"
echo 1 > "$REWARD_DIR/reward.txt"
