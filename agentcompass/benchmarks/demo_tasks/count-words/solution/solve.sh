#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
lines=$(wc -l < poem.txt)
words=$(wc -w < poem.txt)
bytes=$(wc -c < poem.txt)
echo "$((lines)) $((words)) $((bytes))" > counts.txt
cat counts.txt
