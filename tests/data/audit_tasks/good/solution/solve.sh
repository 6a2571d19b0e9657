#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
echo ok > answer.txt
