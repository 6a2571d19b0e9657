#!/bin/bash
# Reward 1 when stats.py gives the right output on three hidden inputs, else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
TESTS="${AGENTCOMPASS_TESTS_DIR:-/tests}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"

check() {  # input file, expected output
    local got
    got="$(python3 "$WORKDIR/stats.py" "$TESTS/$1" 2>&1)"
    if [ "$got" = "$2" ]; then
        echo "PASS: $1"
    else
        echo "FAIL: $1: expected [$2], got [$got]"
        return 1
    fi
}

ok=1
check case1.txt $'count=3\nmean=6.00\nmax=10' || ok=0
check case2.txt $'count=3\nmean=-2.67\nmax=2' || ok=0
check case3.txt $'count=2\nmean=1.50\nmax=2' || ok=0
echo "$ok" > "$REWARD_DIR/reward.txt"
