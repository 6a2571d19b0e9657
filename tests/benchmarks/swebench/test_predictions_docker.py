"""The ``predictions`` harness grades another tool's preds.jsonl with the official grader's statuses.

Eight instances of the calc fixture (one image, built locally) and a preds.jsonl as another tool writes it:
gold, wrong, partial, CRLF, a patch that does not apply, ``""``, ``null`` and one instance without a prediction.
``agentcompass run swebench_verified predictions none --benchmark-params '{"predictions_path": ...}'`` grades
them; then swebench 5.0.2's own code grades (1) our logs: ``get_eval_report`` on each test_output.txt and
``make_run_report`` over the same files in its layout, and (2) the same predictions from scratch:
``run_instances`` in the same image. Every report.json and the run report must be equal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentcompass.benchmarks.swebench import grading
from agentcompass.benchmarks.swebench.specs import RepoSpec, resolve_spec
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import CALC_SPECS, REPO_ROOT, skip_or_fail
from tests.environments.docker_support import TEST_LABELS, remove_session_containers

pytestmark = [pytest.mark.docker, pytest.mark.slow]
MODEL = "other-tool/model-x"


@pytest.fixture(autouse=True)
def _teardown_containers():
    yield
    remove_session_containers()


def _dataset_and_preds(tmp_path: Path, calc) -> tuple[list[dict], Path]:
    patches = {
        "gold": calc.row["patch"],
        "wrong": fixture.patch_for(calc.repo, fixture.WRONG_OPS),
        "half": fixture.patch_for(calc.repo, fixture.HALF_OPS),
        "crlf": calc.row["patch"].replace("\n", "\r\n"),
        "broken": calc.row["patch"].replace("-    return a - b", "-    return a / b / c"),
        "empty": "",
        "null": None,
    }
    rows = [dict(calc.row, instance_id=f"calc__calc-{name}") for name in [*patches, "missing"]]
    lines = [
        json.dumps(
            {"model_name_or_path": MODEL, "instance_id": f"calc__calc-{name}", "model_patch": patch, "cost": 0.1}
        )
        for name, patch in patches.items()
    ]  # key order / extras of a tool
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(lines) + "\n")
    fixture.write_jsonl(rows, tmp_path / "dataset.jsonl")
    return rows, preds


def _ours(tmp_path: Path, dataset: Path, preds: Path, image: str, run_id: str) -> Path:
    params = {
        "dataset_path": str(dataset),
        "image_template": image,
        "agent_env": {},
        "repo_specs": CALC_SPECS,
        "predictions_path": str(preds),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentcompass",
            "run",
            "swebench_verified",
            "predictions",
            "none",
            "--env",
            "docker",
            "--benchmark-params",
            json.dumps(params),
            "--env-params",
            json.dumps({"pull_policy": "never", "labels": TEST_LABELS}),
            "--results-dir",
            str(tmp_path / "results"),
            "--data-dir",
            str(tmp_path / "data"),
            "--run-id",
            run_id,
            "--progress",
            "none",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return next((tmp_path / "results").glob(f"*/{run_id}"))


def _attempt_dirs(run_dir: Path) -> dict[str, Path]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {
        r["task_id"]: (run_dir / r["attempt_dir"])
        if not Path(r["attempt_dir"]).is_absolute()
        else Path(r["attempt_dir"])
        for r in rows
    }


def _spec5(row: dict, eval_script: str = ""):
    from swebench.types import TestSpec

    return TestSpec(
        instance_id=row["instance_id"],
        image="x",
        eval_script_list=grading.parse_eval_script(eval_script) if eval_script else [],
        repo=row["repo"],
        version=row["version"],
        FAIL_TO_PASS=json.loads(row["FAIL_TO_PASS"]),
        PASS_TO_PASS=json.loads(row["PASS_TO_PASS"]),
        log_parser="parse_log_pytest",
        eval_type="pass_and_fail",
    )


def _official_e2e(tmp_path: Path, rows: list[dict], predictions: dict, image: str, run_id: str, monkeypatch):
    """swebench 5.0.2 grades the same predictions in the same image (its containers get our test labels)."""
    import docker.models.containers
    from swebench.harness import run_evaluation

    create = docker.models.containers.ContainerCollection.create
    monkeypatch.setattr(
        docker.models.containers.ContainerCollection,
        "create",
        lambda self, *a, **kw: create(self, *a, **{**kw, "labels": dict(TEST_LABELS)}),
    )
    extra = {"calc/calc": {"0.1": RepoSpec(**CALC_SPECS["calc/calc"]["0.1"])}}
    instances = [
        {
            **r,
            "image": image,
            "log_parser": "parse_log_pytest",
            "eval_type": "pass_and_fail",
            "eval_script": grading.official_eval_script(r, resolve_spec(r, extra)),
        }
        for r in rows
        if r["instance_id"] in predictions and predictions[r["instance_id"]]["model_patch"] not in ("", None)
    ]
    run_evaluation.run_instances(predictions, instances, 4, run_id, 300)


def test_predictions_harness_agrees_with_the_official_grader(tmp_path, calc, calc_image, monkeypatch):
    try:
        from swebench.harness.grading import get_eval_report
        from swebench.harness.reporting import make_run_report
        from swebench.harness.utils import get_predictions_from_file
    except ImportError:
        skip_or_fail("swebench==5.0.2 is not installed: pip install -e '.[agreement]'")
    rows, preds_path = _dataset_and_preds(tmp_path, calc)
    run_id = f"preds-{os.getpid()}-{int(time.time())}"
    run_dir = _ours(tmp_path, tmp_path / "dataset.jsonl", preds_path, calc_image, run_id)
    ours_run = json.loads((run_dir / f"other-tool__model-x.{run_id}.json").read_text())
    dirs = _attempt_dirs(run_dir)
    predictions = {p["instance_id"]: p for p in get_predictions_from_file(str(preds_path), "unused", "test")}

    # (1) the official code on our logs
    monkeypatch.chdir(tmp_path)
    by_id = {r["instance_id"]: r for r in rows}
    for iid, adir in dirs.items():
        mirror = tmp_path / "logs" / "run_evaluation" / run_id / MODEL.replace("/", "__") / iid
        mirror.mkdir(parents=True)
        for name in ("report.json", "test_output.txt", "run_instance.log"):
            if (adir / name).is_file():
                shutil.copy(adir / name, mirror / name)
        if (adir / "test_output.txt").is_file():
            theirs = get_eval_report(_spec5(by_id[iid]), predictions[iid], str(adir / "test_output.txt"), True)
            assert json.loads((adir / "report.json").read_text()) == theirs, iid
    their_run = json.loads(make_run_report(predictions, rows, run_id, report_dir=str(tmp_path / "r1")).read_text())
    assert list(ours_run.items()) == list(their_run.items())
    assert ours_run["resolved_ids"] == ["calc__calc-crlf", "calc__calc-gold"]
    assert ours_run["unresolved_ids"] == ["calc__calc-half", "calc__calc-wrong"]
    assert ours_run["error_ids"] == ["calc__calc-broken"] and ours_run["incomplete_ids"] == ["calc__calc-missing"]
    assert ours_run["empty_patch_ids"] == ["calc__calc-empty", "calc__calc-null"]

    # (2) the official harness grading the same predictions from scratch, in the same image
    official_id = f"{run_id}-official"
    _official_e2e(tmp_path, rows, predictions, calc_image, official_id, monkeypatch)
    their_dir = tmp_path / "logs" / "run_evaluation" / official_id / MODEL.replace("/", "__")
    for iid, adir in dirs.items():
        ours_has, theirs_has = (adir / "report.json").is_file(), (their_dir / iid / "report.json").is_file()
        assert ours_has == theirs_has, iid
        if ours_has:
            assert json.loads((adir / "report.json").read_text()) == json.loads(
                (their_dir / iid / "report.json").read_text()
            ), iid
    official_run = json.loads(
        make_run_report(predictions, rows, official_id, report_dir=str(tmp_path / "r2")).read_text()
    )
    assert list(ours_run.items()) == list(official_run.items())
