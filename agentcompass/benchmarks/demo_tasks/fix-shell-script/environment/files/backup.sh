#!/bin/bash
# Copy every .txt file of docs/ into backup/, then write backup/manifest.txt:
# the names of the copied files, one per line, sorted in byte order.
mkdir -p backup
for f in $(ls docs/*.txt); do
    cp $f backup/
done
ls backup > backup/manifest.txt
