#!/bin/bash
# several rewards in reward.json; reward.txt is written too (0) and must be ignored: reward.json wins
python3 - <<'PY'
import json
from pathlib import Path

checks = {"exists": 0.0, "valid_json": 0.0, "count": 0.0}
report = Path("/app/out/report.json")
if report.is_file():
    checks["exists"] = 1.0
    try:
        data = json.loads(report.read_text())
        checks["valid_json"] = 1.0
        lines = len(Path("/app/data.txt").read_text().splitlines())
        checks["count"] = 1.0 if isinstance(data, dict) and data.get("count") == lines else 0.0
    except ValueError:
        pass
rewards = {"reward": 1.0 if all(v == 1.0 for v in checks.values()) else 0.0, **checks}
Path("/logs/verifier/reward.json").write_text(json.dumps(rewards))
PY
echo 0 > /logs/verifier/reward.txt
