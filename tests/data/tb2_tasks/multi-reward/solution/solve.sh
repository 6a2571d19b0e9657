#!/bin/bash
mkdir -p /app/out
printf '{"count": %d}\n' "$(wc -l < /app/data.txt)" > /app/out/report.json
