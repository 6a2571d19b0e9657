"""``swebench_multilingual`` by name, in Docker: a Go instance in the dataset's hub layout under data_dir, graded in
a locally built instance image with the official table's eval script and the ``go test`` parser."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.benchmarks.swebench import go_fixture
from tests.environments.docker_support import remove_session_containers


@pytest.fixture(scope="module")
def go_instance(tmp_path_factory, docker_ready):
    root = tmp_path_factory.mktemp("go")
    repo, row = go_fixture.make_go_repo(root)
    data_dir = root / "data"
    go_fixture.write_hub_layout([row], data_dir / "swebench" / "SWE-bench" / "SWE-bench_Multilingual")
    tag = go_fixture.build_go_image(repo)
    yield row, data_dir, tag
    remove_session_containers()
    subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)


def _run(tmp_path: Path, data_dir: Path, tag: str, harness: str) -> dict:
    from agentcompass import run_evaluation

    return run_evaluation(
        benchmark="swebench_multilingual",
        harness=harness,
        model="none",
        environment="docker",
        benchmark_params={"image_template": tag, "agent_env": {}, "allow_download": False},
        environment_params={"pull_policy": "never"},
        results_dir=str(tmp_path / "results"),
        data_dir=str(data_dir),
        progress="none",
    )


@pytest.mark.docker
@pytest.mark.slow
def test_gold_patch_resolves_and_empty_patch_does_not(tmp_path, go_instance):
    row, data_dir, tag = go_instance
    gold = _run(tmp_path, data_dir, tag, "oracle")
    assert gold["metadata"]["status"] == "completed", gold["summary"]
    assert gold["metrics"]["resolved"] == 1 and gold["metrics"]["resolved_rate"] == 1.0, gold["summary"]
    adir = Path(json.loads(Path(gold["paths"]["results"]).read_text().splitlines()[0])["attempt_dir"])
    report = json.loads((adir / "report.json").read_text())[go_fixture.INSTANCE_ID]
    assert report["tests_status"]["FAIL_TO_PASS"]["success"] == ["TestMethodNotAllowedNoRoute"]
    assert sorted(report["tests_status"]["PASS_TO_PASS"]["success"]) == json.loads(row["PASS_TO_PASS"])
    script = (adir / "eval.sh").read_text()
    assert 'go test . -v -run "TestMethodNotAllowedNoRoute"' in script and "conda" not in script
    assert "--- PASS: TestMethodNotAllowedNoRoute" in (adir / "test_output.txt").read_text()

    empty = _run(tmp_path, data_dir, tag, "nop")
    assert empty["metrics"]["resolved"] == 0, empty["summary"]
    report = json.loads(Path(empty["paths"]["report"]).read_text())
    assert report["empty_patch_ids"] == [go_fixture.INSTANCE_ID] and report["resolved_ids"] == []


def test_the_official_image_name(tmp_path):
    from tests.benchmarks.swebench.conftest import make_bench

    _, row = go_fixture.make_go_repo(tmp_path)
    bench = make_bench(tmp_path / "data")
    assert bench.image_for(row) == go_fixture.OFFICIAL_IMAGE
