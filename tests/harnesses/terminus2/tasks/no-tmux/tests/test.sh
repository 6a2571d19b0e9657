#!/bin/bash
mkdir -p "${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier" && echo 0 > "${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier/reward.txt"
