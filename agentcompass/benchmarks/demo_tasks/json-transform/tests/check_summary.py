"""Compare summary.json with expected.json; exit 0 when they match."""

import json
import math
import sys

summary_path, expected_path = sys.argv[1], sys.argv[2]
try:
    with open(summary_path) as fh:
        got = json.load(fh)
except (OSError, ValueError) as exc:
    print(f"FAIL: cannot read {summary_path}: {exc}")
    sys.exit(1)
with open(expected_path) as fh:
    expected = json.load(fh)

failures = []
if not isinstance(got, dict) or set(got) != set(expected):
    failures.append(
        f"keys are {sorted(got) if isinstance(got, dict) else type(got).__name__}, expected {sorted(expected)}"
    )
else:
    for key in ("count", "adults", "by_country"):
        if got[key] != expected[key]:
            failures.append(f"{key} is {got[key]!r}, expected {expected[key]!r}")
    avg = got["average_age"]
    if not isinstance(avg, (int, float)) or not math.isclose(avg, expected["average_age"], abs_tol=1e-9):
        failures.append(f"average_age is {avg!r}, expected {expected['average_age']!r}")
for line in failures:
    print("FAIL:", line)
if not failures:
    print("PASS: summary.json matches")
sys.exit(1 if failures else 0)
