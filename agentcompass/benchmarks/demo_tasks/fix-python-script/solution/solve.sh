#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
python3 - <<'PY'
from pathlib import Path

path = Path("stats.py")
text = path.read_text()
fixes = [
    ("count = len(numbers) - 1", "count = len(numbers)"),
    ("mean = sum(numbers) // count", "mean = sum(numbers) / count"),
    ('print(f"max={min(numbers)}")', 'print(f"max={max(numbers)}")'),
]
for old, new in fixes:
    if old not in text:
        raise SystemExit(f"expected line not found: {old}")
    text = text.replace(old, new)
path.write_text(text)
PY
python3 stats.py numbers.txt
