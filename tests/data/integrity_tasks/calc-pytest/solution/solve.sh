#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
sed -i 's/return a - b/return a + b/' calc.py
sed -i '0,/return a + b/!{s/return a + b/return a - b/}' calc.py
python3 -m pytest -q -p no:cacheprovider tests/
