#!/bin/bash
# checks the marker but forgets to write a reward file
test -e /app/marker && echo "marker found" || echo "marker missing"
