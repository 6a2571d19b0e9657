#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
: "${GREETING:?GREETING must be set by [solution.env] of task.toml}"
mkdir -p out
echo "$GREETING" > out/greeting.txt
printf '#!/bin/sh\necho ok\n' > run.sh
chmod +x run.sh
printf '[server]\nport = 8080\n' > config.ini
