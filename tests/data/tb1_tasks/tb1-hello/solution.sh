#!/bin/bash
echo "hi there" > greeting.txt
