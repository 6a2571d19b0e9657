#!/bin/bash
# Reward 1 when project/ is a git repository with one commit "Initial import" holding every file, a clean
# working tree, and a branch "release" at that commit; else 0.
WORKDIR="${AGENTCOMPASS_WORKDIR:-/app}"
REWARD_DIR="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
mkdir -p "$REWARD_DIR"
echo 0 > "$REWARD_DIR/reward.txt"

repo="$WORKDIR/project"
g() { git -c safe.directory='*' -C "$repo" "$@"; }
fail() { echo "FAIL: $*"; exit 0; }

[ -d "$repo/.git" ] || fail "project/ is not a git repository"
head=$(g rev-parse --verify -q HEAD) || fail "no commit"
[ "$(g rev-list --count HEAD)" = 1 ] || fail "expected exactly one commit, found $(g rev-list --count HEAD)"
[ "$(g log -1 --format=%s)" = "Initial import" ] || fail "commit message is [$(g log -1 --format=%s)]"
tracked="$(g ls-files | LC_ALL=C sort | tr '\n' ' ')"
[ "$tracked" = "README.md src/greeter.py " ] || fail "tracked files are [$tracked]"
[ -z "$(g status --porcelain --untracked-files=all)" ] || fail "working tree not clean: $(g status --porcelain)"
release=$(g rev-parse --verify -q refs/heads/release) || fail "no branch named release"
[ "$release" = "$head" ] || fail "release is at $release, HEAD at $head"
echo "PASS: repository as expected"
echo 1 > "$REWARD_DIR/reward.txt"
