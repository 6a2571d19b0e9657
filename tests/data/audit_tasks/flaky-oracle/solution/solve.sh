#!/bin/bash
# A flaky reference solution: it takes a ticket (1, 2, 3, ...) from the folder named in tickets_dir and answers
# right on odd tickets only, so of three runs two pass and one fails, in whatever order they run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tickets="$(cat "$here/tickets_dir")"
n=1
until mkdir "$tickets/$n" 2>/dev/null; do n=$((n + 1)); done
cd "${AGENTCOMPASS_WORKDIR:-/app}"
if [ $((n % 2)) -eq 1 ]; then echo ok > answer.txt; else echo "ticket $n" > answer.txt; fi
