"""Grading in a fresh container (``grade_in: fresh``, the official way) versus in the agent's (``agent``).

The calc instance image is built locally FROM the base image. A scripted agent installs a package into
site-packages and edits a file outside the repository (the interpreter's sitecustomize.py) so that the tests
pass, then submits a patch that fixes nothing (a README edit). Graded in a fresh container from the instance
image the instance is unresolved, as the official harness grades it; graded in the agent's container it is
resolved. Then: a run killed with SIGKILL during grading is re-graded by ``--reuse`` from its saved patch alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.benchmarks.swebench.conftest import CALC_SPECS, REPO_ROOT
from tests.environments.docker_support import TEST_LABELS, api, remove_session_containers

pytestmark = pytest.mark.docker
HARNESS = "tests.benchmarks.swebench.sw_harnesses.ScriptHarness"

CALCFIX = """import builtins
import sys

_import = builtins.__import__


def _import_and_fix(name, globals=None, locals=None, fromlist=(), level=0):
    module = _import(name, globals, locals, fromlist, level)
    ops = sys.modules.get("calc.ops")
    if hasattr(ops, "add") and not getattr(ops, "_calcfix", False):
        ops._calcfix = True
        ops.add.__code__ = (lambda a, b: a + b).__code__
    return module


builtins.__import__ = _import_and_fix
"""
SITE = "$(python3 -c 'import site; print(site.getsitepackages()[0])')"
OUTSIDE_CHANGES = [
    # install a package (a module + its dist-info, as pip lays it out) into site-packages
    f'SITE={SITE} && mkdir -p "$SITE/calcfix-1.0.dist-info" && cat > "$SITE/calcfix.py" <<\'PY\'\n{CALCFIX}PY\n'
    'printf "Metadata-Version: 2.1\\nName: calcfix\\nVersion: 1.0\\n" > "$SITE/calcfix-1.0.dist-info/METADATA" && '
    'printf "calcfix.py,,\\ncalcfix-1.0.dist-info/METADATA,,\\n" > "$SITE/calcfix-1.0.dist-info/RECORD"',
    # edit a file outside the repository so that every interpreter loads it
    "echo 'import calcfix' >> \"$(python3 -c 'import os, sitecustomize; print(os.path.realpath("
    "sitecustomize.__file__))')\"",
    "python3 -c 'from calc.ops import add; assert add(2, 3) == 5, add(2, 3)'",  # the hack works here
    "printf 'calc\\n\\nadd() adds now.\\n' > README.md",  # the submitted "fix"
]


@pytest.fixture(autouse=True)
def _teardown_containers():
    yield
    remove_session_containers()


def containers_of(run_id: str) -> list[dict]:
    return api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]})


def evaluate(tmp_path: Path, calc, image: str, run_id: str, grade_in: str, commands: list[str]) -> dict:
    from agentcompass import run_evaluation

    return run_evaluation(
        benchmark="swebench",
        harness="nop",
        model="none",
        environment="docker",
        benchmark_params={
            "dataset_path": str(calc.jsonl),
            "image_template": image,
            "agent_env": {},
            "repo_specs": CALC_SPECS,
            "grade_in": grade_in,
        },
        harness_params={"commands": commands},
        overrides=[f"harness._target_={HARNESS}"],
        environment_params={"pull_policy": "never", "labels": TEST_LABELS},
        run_id=run_id,
        results_dir=str(tmp_path / "results"),
        data_dir=str(tmp_path / "data"),
        progress="none",
    )


def attempt_of(result: dict) -> tuple[dict, Path]:
    row = json.loads(Path(result["paths"]["results"]).read_text().splitlines()[0])
    adir = (
        Path(result["paths"]["run_dir"]) / row["attempt_dir"]
        if not Path(row["attempt_dir"]).is_absolute()
        else Path(row["attempt_dir"])
    )
    return json.loads((adir / "result.json").read_text()), adir


@pytest.mark.parametrize("grade_in", ["fresh", "agent"])
def test_changes_outside_the_repository_count_only_in_the_agents_container(tmp_path, calc, calc_image, grade_in):
    run_id = f"outside-{grade_in}-{os.getpid()}-{int(time.time())}"
    result = evaluate(tmp_path, calc, calc_image, run_id, grade_in, OUTSIDE_CHANGES)
    res, adir = attempt_of(result)
    assert result["metadata"]["status"] == "completed", res
    report = json.loads((adir / "report.json").read_text())["calc__calc-1"]
    assert report["patch_successfully_applied"] is True
    assert "README.md" in (adir / "patch.diff").read_text()
    f2p = json.loads(calc.row["FAIL_TO_PASS"])
    if grade_in == "fresh":  # official: a new container from the instance image, the patch alone
        assert (res["resolved"], report["resolved"], result["metrics"]["resolved"]) == (False, False, 0)
        assert report["tests_status"]["FAIL_TO_PASS"]["failure"] == f2p
        grading, agent_env = res["environment"]["grading"], res["environment"]
        assert grading["container_id"] != agent_env["container_id"] and grading["image"].startswith(
            "agentcompass/swebench/"
        )  # history: base_only
        assert {"env_open", "agent", "close", "grading_env_open", "verify", "grading_close"} <= set(res["phases"])
    else:  # the agent's container: its site-packages hack makes the tests pass
        assert (res["resolved"], report["resolved"], result["metrics"]["resolved"]) == (True, True, 1)
        assert report["tests_status"]["FAIL_TO_PASS"]["success"] == f2p
        assert "grading" not in res["environment"] and "grading_env_open" not in res["phases"]
    assert containers_of(run_id) == []


def _cli(tmp_path: Path, calc, image: str, run_id: str, *extra: str) -> list[str]:
    params = {"dataset_path": str(calc.jsonl), "image_template": image, "agent_env": {}, "repo_specs": CALC_SPECS}
    return [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "swebench",
        "nop",
        "none",
        "--env",
        "docker",
        "--benchmark-params",
        json.dumps(params),
        "--harness-params",
        json.dumps({"gold": True, "runs_log": str(tmp_path / "agent_runs.txt")}),
        "--env-params",
        json.dumps({"pull_policy": "never", "labels": TEST_LABELS}),
        "--results-dir",
        str(tmp_path / "results"),
        "--data-dir",
        str(tmp_path / "data"),
        "--run-name",
        "killed",
        "--progress",
        "none",
        f"harness._target_={HARNESS}",
        *extra,
    ]


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def test_killed_run_is_regraded_from_the_saved_patch_alone(tmp_path, calc, calc_image):
    run_id = f"regrade-{os.getpid()}-{int(time.time())}"
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "slow_verify.yaml").write_text(
        "description: wait before grading\nhook_timeout_s: 600\nhooks:\n  before_verify:\n    - sleep 300\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    adir = tmp_path / "results" / "killed" / run_id / "tasks" / "calc__calc-1" / "sample-1" / "attempt-1"
    proc = subprocess.Popen(
        _cli(
            tmp_path,
            calc,
            calc_image,
            run_id,
            "--run-id",
            run_id,
            "--recipe-dir",
            str(recipes),
            "--recipe",
            "slow_verify",
        ),
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:  # killed while grading: the agent phase is over, its checkpoint and patch are on disk
        _wait(
            lambda: (
                (adir / "checkpoint.json").is_file()
                and any(c["Labels"].get("agentcompass.role") == "grading" for c in containers_of(run_id))
            ),
            300,
            "the grading container of the first run",
        )
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (adir / "result.json").exists()
    # the agent's container was being removed in the background when the run was killed: the engine finishes that
    _wait(lambda: len(containers_of(run_id)) == 1, 60, "the agent container's removal")
    assert (tmp_path / "agent_runs.txt").read_text().splitlines() == ["calc__calc-1"]
    done = subprocess.run(
        _cli(tmp_path, calc, calc_image, run_id, "--reuse", run_id),
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    res = json.loads((adir / "result.json").read_text())
    assert (res["status"], res["resolved"], res["resumed_from_checkpoint"]) == ("completed", True, True)
    assert (tmp_path / "agent_runs.txt").read_text().splitlines() == ["calc__calc-1"]  # the agent never reran
    assert "env_open" not in res["phases"] and "agent" not in res["phases"] and "setup" not in res["phases"]
    assert set(res["environment"]) == {"grading"}
    report = json.loads((adir.parents[3] / f"agentcompass.{run_id}.json").read_text())
    assert report["resolved_ids"] == ["calc__calc-1"]
    assert containers_of(run_id) == []
