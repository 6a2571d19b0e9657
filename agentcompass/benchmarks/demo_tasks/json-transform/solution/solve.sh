#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
python3 - <<'PY'
import json
from collections import Counter

with open("users.json") as fh:
    users = json.load(fh)
summary = {
    "count": len(users),
    "adults": sorted(u["name"] for u in users if u["age"] >= 18),
    "by_country": dict(Counter(u["country"] for u in users)),
    "average_age": round(sum(u["age"] for u in users) / len(users), 1),
}
with open("summary.json", "w") as fh:
    json.dump(summary, fh, indent=2)
PY
cat summary.json
