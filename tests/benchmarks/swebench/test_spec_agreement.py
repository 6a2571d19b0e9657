"""Eval scripts byte-identical to the official harness for every (repository, version) of every language.

``swebench==4.1.0`` (the last release that builds the eval script from a classic row) runs in its reference venv
(``scripts/ensure_reference.sh swebench4``), in ONE subprocess for all fixture rows: one row per (repo, version)
and test-patch shape (fake test names), JavaScript rows also with ``image_assets``. Its
``make_test_spec(row).eval_script`` must equal ours byte for byte; the tables must hold exactly its gradable
(repo, version) pairs, of every language, with the same log parsers; and what we run (``make_eval_script``) must
equal what swebench 5.0.2 (main interpreter) runs for a row carrying that script.

Left out, as the reference itself cannot grade them: ``dbt-labs/dbt-core`` (its specs have no test command, so
``make_test_spec`` fails) and ``swe-bench/humaneval`` (no log parser).
"""

from __future__ import annotations

import json

import pytest

from agentcompass.benchmarks.swebench import grading, spec_table_languages
from agentcompass.benchmarks.swebench.patchset import modified_files, patched_paths
from agentcompass.benchmarks.swebench.spec_table import REPOS
from agentcompass.benchmarks.swebench.specs import known_repos, known_versions, resolve_spec, version_spec
from agentcompass.testing.reference import run_reference
from tests.benchmarks.swebench.conftest import need_reference, skip_or_fail
from tests.benchmarks.swebench.patch_shapes import make_shapes

N_PAIRS = {"py": 282, "js": 132, "java": 43, "go": 42, "rs": 43, "c": 42, "php": 43, "rb": 44}
NOT_GRADABLE = {"dbt-labs/dbt-core", "swe-bench/humaneval"}

# The reference's environment-image helpers fetch requirements from GitHub; they feed only the image build
# script, never the eval script, so they are replaced by stubs (there is no network here).
REFERENCE = r"""
import json, sys
from swebench.harness.test_spec import python as tsp
tsp.get_requirements = lambda instance: ""
tsp.get_environment_yml = lambda instance, env_name: ""
from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS, MAP_REPO_TO_EXT
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
from swebench.harness.log_parsers import python as py_parsers
from swebench.harness.test_spec.test_spec import make_test_spec
from swebench.harness.utils import get_modified_files
from unidiff import PatchSet

payload = json.load(sys.stdin)
failing = []
for repo in payload["not_gradable"]:
    version = next(iter(MAP_REPO_VERSION_TO_SPECS[repo]))
    row = dict(payload["rows"][0], repo=repo, version=version)
    try:
        make_test_spec(row)
    except Exception as exc:
        failing.append([repo, type(exc).__name__])
print(json.dumps({
    "scripts": [make_test_spec(row).eval_script for row in payload["rows"]],
    "modified": {name: get_modified_files(patch) for name, patch in payload["patches"].items()},
    "paths": {name: [f.path for f in PatchSet(patch)] for name, patch in payload["patches"].items()},
    "pairs": {repo: sorted(MAP_REPO_VERSION_TO_SPECS[repo]) for repo in MAP_REPO_TO_PARSER},
    "not_gradable": sorted(set(MAP_REPO_VERSION_TO_SPECS) - set(MAP_REPO_TO_PARSER)),
    "failing": failing,
    "languages": {repo: MAP_REPO_TO_EXT[repo] for repo in MAP_REPO_TO_PARSER},
    # Python repositories' parsers are aliases (parse_log_flask is parse_log_pytest): compared as functions
    "parsers": {repo: (getattr(py_parsers, payload["parsers"][repo], None) is fn and payload["parsers"][repo])
                      if MAP_REPO_TO_EXT[repo] == "py" else fn.__name__ for repo, fn in MAP_REPO_TO_PARSER.items()},
}))
"""

ASSETS = {"test_patch": [{"path": "test/fixtures/expected.png", "url": "https://example.com/a/expected.png"}]}


def _row(repo: str, version: str, shape: str, base: str, patch: str) -> dict:
    iid = f"{repo.replace('/', '__')}-{version}-{shape}"
    row = {
        "instance_id": iid,
        "repo": repo,
        "version": version,
        "base_commit": base,
        "patch": "",
        "test_patch": patch,
        "problem_statement": "p",
        "hints_text": "",
        "created_at": "2024-01-01",
        "FAIL_TO_PASS": json.dumps(["tests/test_a.py::test_fake"]),
        "PASS_TO_PASS": json.dumps(["t::p"]),
        "environment_setup_commit": base,
    }
    if shape.endswith("+assets"):
        row["image_assets"] = json.dumps(ASSETS)
    return row


def _language(repo: str) -> str:
    return "py" if repo in REPOS else spec_table_languages.language(repo)


def _rows(shapes: dict[str, tuple[str, str]]) -> list[dict]:
    rows = []
    for repo in known_repos():
        for version in known_versions(repo):
            for shape, (base, patch) in shapes.items():
                rows.append(_row(repo, version, shape, base, patch))
                if _language(repo) == "js" and shape in ("modify", "js_layout", "new_only"):
                    rows.append(_row(repo, version, f"{shape}+assets", base, patch))
    return rows


@pytest.fixture(scope="module")
def agreement(tmp_path_factory):
    need_reference("swebench4")
    shapes = make_shapes(tmp_path_factory.mktemp("shapes"))
    rows = _rows(shapes)
    payload = {
        "rows": rows,
        "patches": {k: p for k, (_, p) in shapes.items()},
        "not_gradable": sorted(NOT_GRADABLE),
        "parsers": {repo: version_spec(repo, known_versions(repo)[0]).log_parser for repo in known_repos()},
    }
    return rows, shapes, run_reference("swebench4", REFERENCE, payload, timeout=900)


def test_tables_hold_exactly_the_official_pairs_of_every_language(agreement):
    _, _, theirs = agreement
    ours = {repo: sorted(known_versions(repo)) for repo in known_repos()}
    assert ours == theirs["pairs"]
    assert {repo: _language(repo) for repo in ours} == theirs["languages"]
    assert {repo: version_spec(repo, known_versions(repo)[0]).log_parser for repo in ours} == theirs["parsers"]
    assert theirs["not_gradable"] == sorted(NOT_GRADABLE)
    assert [r for r, _ in theirs["failing"]] == ["dbt-labs/dbt-core"]  # no test command: no eval script
    counts: dict[str, int] = {}
    for repo, versions in ours.items():
        counts[_language(repo)] = counts.get(_language(repo), 0) + len(versions)
    print(f"spec tables: {len(ours)} repositories, {sum(counts.values())} (repo, version) pairs: {counts}")
    assert counts == N_PAIRS


def test_eval_scripts_are_byte_identical_for_every_pair(agreement):
    rows, shapes, theirs = agreement
    assert len(theirs["scripts"]) == len(rows)
    differ = [
        row["instance_id"]
        for row, script in zip(rows, theirs["scripts"], strict=True)
        if grading.official_eval_script(row, resolve_spec(row)) != script
    ]
    n_pairs = sum(N_PAIRS.values())
    print(
        f"eval scripts: {len(rows) - len(differ)}/{len(rows)} byte-identical "
        f"({n_pairs} pairs x {len(shapes)} test-patch shapes, JavaScript pairs also with image_assets)"
    )
    assert differ == []


def test_reset_file_lists_and_patch_paths_match_the_reference_parser(agreement):
    _, shapes, theirs = agreement
    assert {name: modified_files(patch) for name, (_, patch) in shapes.items()} == theirs["modified"]
    assert {name: patched_paths(patch) for name, (_, patch) in shapes.items()} == theirs["paths"]
    assert theirs["modified"]["new_only"] == [] and theirs["modified"]["quoted_name"] == []


def test_calypso_commands_follow_the_test_patch(agreement):
    """The js_layout shape reaches every branch of wp-calypso's rule (client, packages, e2e, snapshots)."""
    rows, _, theirs = agreement
    by_id = dict(zip((r["instance_id"] for r in rows), theirs["scripts"], strict=True))
    script = by_id["Automattic__wp-calypso-10.10.0-js_layout"]
    assert "jest.config.js 'client/state/test/index.js'" in script and "cd test/e2e" in script
    assert "jest.config.js 'client/blocks'" in script  # the snapshot's folder
    assert (
        "npm run test-packages --verbose 'packages/data/test/new.js'" in by_id["Automattic__wp-calypso-6.1.0-js_layout"]
    )


def test_what_we_run_is_what_swebench_5_runs(agreement):
    """A 5.x row carrying the official script: 5.0.2 records the test exit code; our run script is the same."""
    try:
        from swebench.harness.utils import make_test_spec
    except ImportError:
        skip_or_fail("swebench==5.0.2 is not installed: pip install -e '.[agreement]'")
    rows, _, theirs = agreement
    differ = []
    for row, script in zip(rows, theirs["scripts"], strict=True):
        spec = resolve_spec(row)
        row5 = {**row, "image": "x", "eval_script": script, "log_parser": spec.log_parser, "eval_type": spec.eval_type}
        ours = grading.make_eval_script(row, spec)
        if ours != make_test_spec(row5).eval_script or grading.make_eval_script(row5, resolve_spec(row5)) != ours:
            differ.append(row["instance_id"])
    assert differ == []
