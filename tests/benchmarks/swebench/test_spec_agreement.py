"""Eval scripts byte-identical to the official harness for every (repository, version) of the spec table.

``swebench==4.1.0`` (the last release that builds the eval script from a classic row) runs in its reference venv
(``scripts/ensure_reference.sh swebench4``), in ONE subprocess for all fixture rows: one row per (repo, version)
and test-patch shape (fake test names). Its ``make_test_spec(row).eval_script`` must equal ours byte for byte;
the table must hold exactly its Python (repo, version) pairs with the same log parsers; and what we run
(``make_eval_script``) must equal what swebench 5.0.2 (main interpreter) runs for a row carrying that script.
"""

from __future__ import annotations

import json

import pytest

from agentcompass.benchmarks.swebench import grading
from agentcompass.benchmarks.swebench.patchset import modified_files
from agentcompass.benchmarks.swebench.spec_table import REPOS
from agentcompass.benchmarks.swebench.specs import known_versions, resolve_spec
from agentcompass.testing.reference import run_reference
from tests.benchmarks.swebench.conftest import need_reference, skip_or_fail
from tests.benchmarks.swebench.patch_shapes import make_shapes

# The reference's environment-image helpers fetch requirements from GitHub; they feed only the image build
# script, never the eval script, so they are replaced by stubs (there is no network here).
REFERENCE = r"""
import json, sys
from swebench.harness.test_spec import python as tsp
tsp.get_requirements = lambda instance: ""
tsp.get_environment_yml = lambda instance, env_name: ""
from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER_PY
from swebench.harness.log_parsers import python as parsers
from swebench.harness.test_spec.test_spec import make_test_spec
from swebench.harness.utils import get_modified_files

payload = json.load(sys.stdin)
print(json.dumps({
    "scripts": [make_test_spec(row).eval_script for row in payload["rows"]],
    "modified": {name: get_modified_files(patch) for name, patch in payload["patches"].items()},
    "pairs": {repo: sorted(MAP_REPO_VERSION_TO_SPECS[repo]) for repo in MAP_REPO_TO_PARSER_PY},
    "parsers_match": {repo: getattr(parsers, name, None) is MAP_REPO_TO_PARSER_PY.get(repo)
                      for repo, name in payload["parsers"].items()},
}))
"""


def _row(repo: str, version: str, shape: str, base: str, patch: str) -> dict:
    iid = f"{repo.replace('/', '__')}-{version}-{shape}"
    return {
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


@pytest.fixture(scope="module")
def agreement(tmp_path_factory):
    need_reference("swebench4")
    shapes = make_shapes(tmp_path_factory.mktemp("shapes"))
    rows = [
        _row(repo, version, shape, base, patch)
        for repo in REPOS
        for version in known_versions(repo)
        for shape, (base, patch) in shapes.items()
    ]
    payload = {
        "rows": rows,
        "patches": {k: p for k, (_, p) in shapes.items()},
        "parsers": {repo: entry["log_parser"] for repo, entry in REPOS.items()},
    }
    return rows, shapes, run_reference("swebench4", REFERENCE, payload, timeout=600)


def test_table_holds_exactly_the_official_python_pairs(agreement):
    _, _, theirs = agreement
    ours = {repo: sorted(known_versions(repo)) for repo in REPOS}
    assert ours == theirs["pairs"]
    assert all(theirs["parsers_match"].values()), theirs["parsers_match"]
    n_pairs = sum(len(v) for v in ours.values())
    print(f"spec table: {len(ours)} repositories, {n_pairs} (repo, version) pairs")
    assert n_pairs == 282


def test_eval_scripts_are_byte_identical_for_every_pair(agreement):
    rows, shapes, theirs = agreement
    assert len(theirs["scripts"]) == len(rows) == 282 * len(shapes)
    differ = [
        row["instance_id"]
        for row, script in zip(rows, theirs["scripts"], strict=False)
        if grading.official_eval_script(row, resolve_spec(row)) != script
    ]
    print(
        f"eval scripts: {len(rows) - len(differ)}/{len(rows)} byte-identical "
        f"(282 pairs x {len(shapes)} test-patch shapes)"
    )
    assert differ == []


def test_reset_file_lists_match_the_reference_parser(agreement):
    _, shapes, theirs = agreement
    assert {name: modified_files(patch) for name, (_, patch) in shapes.items()} == theirs["modified"]
    assert theirs["modified"]["new_only"] == [] and theirs["modified"]["quoted_name"] == []


def test_what_we_run_is_what_swebench_5_runs(agreement):
    """A 5.x row carrying the official script: 5.0.2 records the test exit code; our run script is the same."""
    try:
        from swebench.harness.utils import make_test_spec
    except ImportError:
        skip_or_fail("swebench==5.0.2 is not installed: pip install -e '.[agreement]'")
    rows, _, theirs = agreement
    differ = []
    for row, script in zip(rows, theirs["scripts"], strict=False):
        spec = resolve_spec(row)
        row5 = {**row, "image": "x", "eval_script": script, "log_parser": spec.log_parser, "eval_type": spec.eval_type}
        ours = grading.make_eval_script(row, spec)
        if ours != make_test_spec(row5).eval_script or grading.make_eval_script(row5, resolve_spec(row5)) != ours:
            differ.append(row["instance_id"])
    assert differ == []
