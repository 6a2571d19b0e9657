#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}/project"
git init -q
git add -A
git -c user.name="agentcompass oracle" -c user.email="oracle@example.invalid" commit -q -m "Initial import"
git branch release
git log --oneline --all
