#!/bin/bash
# A broken reference solution: it writes the wrong answer.
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
echo okay > answer.txt
