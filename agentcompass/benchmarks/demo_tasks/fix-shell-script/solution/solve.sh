#!/bin/bash
set -euo pipefail
cd "${AGENTCOMPASS_WORKDIR:-/app}"
cat > backup.sh <<'SH'
#!/bin/bash
# Copy every .txt file of docs/ into backup/, then write backup/manifest.txt:
# the names of the copied files, one per line, sorted in byte order.
set -euo pipefail
mkdir -p backup
names=()
for f in docs/*.txt; do
    [ -f "$f" ] || continue
    cp -- "$f" backup/
    names+=("$(basename -- "$f")")
done
if [ "${#names[@]}" -gt 0 ]; then
    printf '%s\n' "${names[@]}" | LC_ALL=C sort > backup/manifest.txt
else
    : > backup/manifest.txt
fi
SH
chmod +x backup.sh
bash backup.sh && cat backup/manifest.txt
