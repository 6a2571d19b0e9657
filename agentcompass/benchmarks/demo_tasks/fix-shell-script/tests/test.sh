#!/bin/bash
# Reward 1 when backup.sh, run in a fresh directory with its own docs/, copies exactly the .txt files
# (names with spaces included) and writes the right manifest; else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
echo 0 > "$REWARD_DIR/reward.txt"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/docs"
printf 'a\n' > "$scratch/docs/alpha.txt"
printf 'b\n' > "$scratch/docs/Big Report.txt"
printf 'c\n' > "$scratch/docs/notes v2.txt"
printf 'd\n' > "$scratch/docs/skip.md"
cp "$WORKDIR/backup.sh" "$scratch/backup.sh" || { echo "FAIL: backup.sh not found"; exit 0; }
(cd "$scratch" && timeout 30 bash ./backup.sh) || echo "note: backup.sh exited with status $?"

expected_files=$'Big Report.txt\nalpha.txt\nmanifest.txt\nnotes v2.txt'
actual_files="$(cd "$scratch/backup" 2>/dev/null && ls -A | LC_ALL=C sort)"
expected_manifest=$'Big Report.txt\nalpha.txt\nnotes v2.txt'
actual_manifest="$(cat "$scratch/backup/manifest.txt" 2>/dev/null)"

ok=1
if [ "$actual_files" != "$expected_files" ]; then
    echo "FAIL: backup/ holds [$actual_files], expected [$expected_files]"; ok=0
fi
if [ "$actual_manifest" != "$expected_manifest" ]; then
    echo "FAIL: manifest is [$actual_manifest], expected [$expected_manifest]"; ok=0
fi
for name in "alpha.txt" "Big Report.txt" "notes v2.txt"; do
    cmp -s "$scratch/docs/$name" "$scratch/backup/$name" || { echo "FAIL: $name not copied intact"; ok=0; }
done
[ "$ok" = 1 ] && echo "PASS: backup.sh works"
echo "$ok" > "$REWARD_DIR/reward.txt"
