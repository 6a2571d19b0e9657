#!/bin/bash
cd "${AGENTCOMPASS_WORKDIR:-/app}" && echo "hi from terminus" > greeting.txt
