#!/bin/bash
# Terminal-Bench 1 runs this with TEST_DIR=/tests; pytest comes from the image here (no network)
python3 -m pytest $TEST_DIR/test_outputs.py -rA -p no:cacheprovider
