"""The eval script of a classic row of a non-Python repository, as the official harness (4.1.x) builds it.

The layout: go to the repository, mark it safe for git, reset the files the test patch modifies (or say there
are none), apply the test patch with ``git apply --verbose --reject`` from a heredoc, run the version's build
steps, the test commands between the markers, reset again. JavaScript rows also download their ``image_assets``
(the binary files a text patch cannot carry) before the test patch, and wp-calypso's test commands follow from
the files its test patch touches.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from .patchset import modified_files, patched_paths
from .shapes import ImageAsset, SweBenchInstance

HEREDOC_DELIMITER = "EOF_114329324912"
START_TEST_OUTPUT = ">>>>> Start Test Output"
END_TEST_OUTPUT = ">>>>> End Test Output"

# wp-calypso: which Jest configuration a package's tests run with, by version (facts of the official harness).
CALYPSO_JEST_JS = ("10.10.0", "10.12.0", "10.13.0", "10.14.0", "10.15.2", "10.16.3")
CALYPSO_JEST_JSON = (
    *("6.11.5", "8.9.1", "8.9.3", "8.9.4", "8.11.0", "8.11.2"),
    *("10.4.1", "10.5.0", "10.6.0", "10.9.0"),
)
_SNAPSHOT = re.compile(r"__snapshots__/(.*).js.snap$")


def _calypso_test_cmds(row: SweBenchInstance) -> list[str]:
    cmds: list[str] = []
    for path in patched_paths(row["test_patch"]):
        if _SNAPSHOT.search(path):
            path = "/".join(path.split("/")[:-2])  # a snapshot's tests are those of its folder's parent
        if path.startswith(("client", "packages")):
            pkg = path.split("/")[0]
            if row["version"] in CALYPSO_JEST_JS:
                cmds.append(f"./node_modules/.bin/jest --verbose -c=test/{pkg}/jest.config.js '{path}'")
            elif row["version"] in CALYPSO_JEST_JSON:
                cmds.append(f"./node_modules/.bin/jest --verbose -c=test/{pkg}/jest.config.json '{path}'")
            else:
                cmds.append(f"npm run test-{pkg} --verbose '{path}'")
        elif path.startswith("test/e2e"):
            cmds += ["cd test/e2e", f"NODE_CONFIG_ENV=test npm run test {path}", "cd ../.."]
    return cmds


CUSTOM_TEST_CMDS = {"Automattic/wp-calypso": _calypso_test_cmds}


def image_assets(row: SweBenchInstance) -> dict[str, list[ImageAsset]]:
    value = row.get("image_assets")
    if isinstance(value, str):
        return json.loads(value) if value.strip() else {}
    return value or {}


def _download_assets(row: SweBenchInstance) -> list[str]:
    cmds: list[str] = []
    for asset in image_assets(row).get("test_patch", []):
        folder = PurePosixPath(asset["path"]).parent
        cmds += [f"mkdir -p {folder}", f"curl -o {asset['path']} {asset['url']}", f"chmod 777 {asset['path']}"]
    return cmds


def eval_script_lines(
    row: SweBenchInstance, test_cmd: str, build: list[str], language: str, repo_dir: str
) -> list[str]:
    """The commands of the script (no shebang, no ``set`` line)."""
    base, test_patch = row["base_commit"], row["test_patch"]
    files = modified_files(test_patch)
    reset = f"git checkout {base} {' '.join(files)}" if files else 'echo "No test files to reset"'
    tests = test_cmd.split("\n")
    if language == "js" and row["repo"] in CUSTOM_TEST_CMDS:
        tests = CUSTOM_TEST_CMDS[row["repo"]](row)
    return [
        f"cd {repo_dir}",
        f"git config --global --add safe.directory {repo_dir}",
        f"cd {repo_dir}",
        reset,
        *(_download_assets(row) if language == "js" else []),
        f"git apply --verbose --reject - <<'{HEREDOC_DELIMITER}'\n{test_patch}\n{HEREDOC_DELIMITER}",
        *build,
        f": '{START_TEST_OUTPUT}'",
        *tests,
        f": '{END_TEST_OUTPUT}'",
        reset,
    ]
