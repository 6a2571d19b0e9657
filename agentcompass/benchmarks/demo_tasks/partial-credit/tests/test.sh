#!/bin/bash
# Partial credit: one key per step in reward.json, and "reward" = the share of steps done.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
cd "$WORKDIR" || exit 0

dir=0; greeting=0; script=0; config=0
[ -d out ] && dir=1
[ -f out/greeting.txt ] && [ "$(cat out/greeting.txt)" = "hi" ] && [ "$(wc -l < out/greeting.txt)" -le 1 ] && greeting=1
if [ -f run.sh ] && [ -x run.sh ] && [ "$(timeout 10 ./run.sh 2>/dev/null)" = "ok" ]; then script=1; fi
config=$(python3 - "${EXPECTED_PORT:?EXPECTED_PORT comes from [verifier.env]}" <<'PY'
import configparser, sys
parser = configparser.ConfigParser()
try:
    ok = bool(parser.read("config.ini")) and parser.get("server", "port", fallback=None) == sys.argv[1]
except configparser.Error:
    ok = False
print(1 if ok else 0)
PY
)
echo "dir=$dir greeting=$greeting script=$script config=$config"
python3 - "$dir" "$greeting" "$script" "$config" > "$REWARD_DIR/reward.json" <<'PY'
import json, sys
steps = dict(zip(("dir", "greeting", "script", "config"), (int(x or 0) for x in sys.argv[1:])))
print(json.dumps({"reward": sum(steps.values()) / len(steps), **steps}))
PY
cat "$REWARD_DIR/reward.json"
