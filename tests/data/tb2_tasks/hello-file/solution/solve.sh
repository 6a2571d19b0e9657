#!/bin/bash
# runs from the workdir (/app)
echo "Hello, world!" > hello.txt
