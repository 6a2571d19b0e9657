"""``history: base_only``: the agent's image holds nothing of the repository after the base commit.

SWE-bench instance images are clones of the upstream repository checked out at the base commit, and agents have
read the fix from them (``git log --all``, tags, remote refs, the reflog: SWE-bench#465). With ``base_only`` (the
default) the benchmark asks the environment for an image built FROM the instance image with one more layer, made
by :data:`SCRIPT`: every tag, remote, remote-tracking ref, note, stash and other branch is deleted, the current
branch (or the detached HEAD) stays at the base commit, the reflog is emptied and the unreachable objects are
pruned; then the same step checks the result and fails the build (an ImageError naming what is left) when any
ref, reflog entry or object after the base commit remains. The working tree is not touched. The image is built
once per instance (the docker provider caches it by the hash of this context and the instance image's name).
``history: full`` uses the instance image as published. Environments without images (``local``) are not changed.
"""

from __future__ import annotations

from pathlib import Path

from agentcompass.kit import write_atomic

CONTEXT_DIR = "swebench-history-base-only"
HARDEN = "harden-history.sh"
DOCKERFILE = f"""ARG INSTANCE_IMAGE
FROM ${{INSTANCE_IMAGE}}
ARG REPO_DIR
ARG BASE_COMMIT
COPY {HARDEN} /tmp/{HARDEN}
RUN bash /tmp/{HARDEN} "$REPO_DIR" "$BASE_COMMIT" && rm -f /tmp/{HARDEN}
"""
SCRIPT = r"""#!/bin/bash
# Leave nothing after the base commit in the repository at $1 (base commit $2), then check it.
set -euo pipefail
cd "$1"
base=$(git rev-parse --verify "$2^{commit}")
head=$(git rev-parse --verify HEAD)
if [ "$head" != "$base" ]; then echo "history: HEAD is $head, not the base commit $base" >&2; exit 3; fi
branch=$(git symbolic-ref -q HEAD || true)
for remote in $(git remote); do git remote remove "$remote"; done
git for-each-ref --format='%(refname)' | while read -r ref; do
  if [ "$ref" != "$branch" ]; then git update-ref -d "$ref"; fi
done
rm -rf .git/logs .git/FETCH_HEAD .git/ORIG_HEAD .git/MERGE_HEAD .git/refs/original .git/objects/info/alternates
git reflog expire --expire=now --expire-unreachable=now --all
git -c gc.auto=0 gc --prune=now --quiet
# the check: any ref, reflog entry, stash or object not an ancestor of the base commit fails the build
left=$(git for-each-ref --format='%(refname)' | grep -vxF -- "${branch:-none}" || true)
after=$(git rev-list --all --reflog --not "$base" || true)
loose=$(git fsck --unreachable --no-reflogs --connectivity-only --no-progress 2>/dev/null || true)
if [ -n "$left$after$loose" ] || [ -n "$(git stash list)" ] || [ -n "$(git reflog)" ]; then
  echo "history: left after the base commit: ${left} ${after} ${loose}" >&2; exit 4
fi
echo "history: nothing after $base"
"""


def context(data_dir: Path) -> Path:
    """The build context (Dockerfile and script) under ``data_dir``, written when missing or changed."""
    folder = Path(data_dir) / CONTEXT_DIR
    for name, text in (("Dockerfile", DOCKERFILE), (HARDEN, SCRIPT)):
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
    return folder


def build_args(image: str, workdir: str, base_commit: str) -> dict[str, str]:
    return {"INSTANCE_IMAGE": image, "REPO_DIR": workdir, "BASE_COMMIT": base_commit}
