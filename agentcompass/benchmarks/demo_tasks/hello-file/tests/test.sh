#!/bin/bash
# Reward 1 when hello.txt holds exactly "Hello, world!" (a final newline is optional), else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"

target="$WORKDIR/hello.txt"
if [ -f "$target" ] && { printf 'Hello, world!\n' | cmp -s - "$target" || printf 'Hello, world!' | cmp -s - "$target"; }; then
    echo "PASS: hello.txt has the expected content"
    echo 1 > "$REWARD_DIR/reward.txt"
else
    echo "FAIL: $target is missing or has other content"
    echo 0 > "$REWARD_DIR/reward.txt"
fi
