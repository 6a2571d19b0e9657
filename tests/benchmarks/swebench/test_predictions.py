"""Predictions files (FORMATS A3) and the ``predictions`` harness, without an environment."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from agentcompass.benchmarks.swebench.predictions import read_predictions
from agentcompass.errors import ConfigError, DatasetError
from agentcompass.harnesses.predictions import PredictionsConfig, PredictionsHarness
from agentcompass.interfaces import AttemptContext
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import CALC_SPECS, REPO_ROOT, make_bench

PREDS = [
    {"instance_id": "a", "model_name_or_path": "m/x", "model_patch": "diff a"},
    {"instance_id": "b", "model_name_or_path": "m/x", "model_patch": None},
    {"instance_id": "a", "model_name_or_path": "m/x", "model_patch": "diff a2", "extra": 1},
]


@pytest.mark.parametrize("shape", ["jsonl", "json-list", "json-dict"])
def test_the_three_file_shapes(tmp_path, shape):
    path = tmp_path / ("p.jsonl" if shape == "jsonl" else "p.json")
    if shape == "jsonl":
        path.write_text("".join(json.dumps(p) + "\n" for p in PREDS))
    elif shape == "json-list":
        path.write_text(json.dumps(PREDS))
    else:  # mini-swe-agent's preds.json: keyed by instance id
        path.write_text(json.dumps({p["instance_id"]: p for p in PREDS[1:]}))
    preds = read_predictions(str(path))
    assert list(preds) == (["b", "a"] if shape == "json-dict" else ["a", "b"])
    assert preds["a"] == {"instance_id": "a", "model_name_or_path": "m/x", "model_patch": "diff a2"}
    assert preds["b"]["model_patch"] is None


@pytest.mark.parametrize(
    "content,name,message",
    [
        ('{"instance_id": "a", "model_patch": "x"}\n', "p.jsonl", "has no 'model_name_or_path'"),
        ("not json\n", "p.jsonl", "line 1 is not valid JSON"),
        ('"a string"', "p.json", "must be a JSON list"),
        ('{"instance_id": "a", "model_name_or_path": "m", "model_patch": 3}\n', "p.jsonl", "model_patch must be"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(tmp_path, content, name, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DatasetError, match=message):
        read_predictions(str(path))


def test_bad_paths(tmp_path):
    with pytest.raises(ConfigError, match="must be a .jsonl or .json file"):
        read_predictions(str(tmp_path / "p.txt"))
    with pytest.raises(ConfigError, match="no such file"):
        read_predictions(str(tmp_path / "p.jsonl"))


def test_unknown_instance_is_an_error_and_gold_uses_the_rows(tmp_path, calc):
    path = fixture.write_jsonl(
        [{"instance_id": "nope__nope-1", "model_name_or_path": "m", "model_patch": "d"}], tmp_path / "p.jsonl"
    )
    bench = make_bench(
        tmp_path / "d", harness_id="predictions", dataset_path=str(calc.jsonl), predictions_path=str(path)
    )
    with pytest.raises(DatasetError, match="1 prediction id\\(s\\) not in the dataset: nope__nope-1"):
        bench.load()
    bench = make_bench(tmp_path / "d", harness_id="predictions", dataset_path=str(calc.jsonl), predictions_path="gold")
    task = bench.load()[0]
    solution = bench.supplied_solution(task)
    assert solution.submission == calc.row["patch"] and solution.info == {"model_name_or_path": "gold"}


def test_predictions_path_and_harness_must_go_together(tmp_path, calc):
    with pytest.raises(ConfigError, match="read by the 'predictions' harness only"):
        make_bench(tmp_path, harness_id="mini_swe_agent", dataset_path=str(calc.jsonl), predictions_path="gold")
    with pytest.raises(ConfigError, match="needs benchmark_params.predictions_path"):
        make_bench(tmp_path, harness_id="predictions", dataset_path=str(calc.jsonl))


def test_harness_submits_the_prediction_or_nothing(tmp_path, calc):
    path = fixture.write_jsonl(
        [{"instance_id": fixture.INSTANCE_ID, "model_name_or_path": "tool/m", "model_patch": "diff x"}],
        tmp_path / "p.jsonl",
    )
    harness = PredictionsHarness(PredictionsConfig(), None)
    assert harness.needs_environment is False and harness.requires_model is False
    for preds_path, expected in ((str(path), ("submitted", "diff x")), (None, ("no_prediction", None))):
        if preds_path is None:
            path.write_text("")
            preds_path = str(path)
        bench = make_bench(
            tmp_path / "d", harness_id="predictions", dataset_path=str(calc.jsonl), predictions_path=preds_path
        )
        task = bench.load()[0]
        ctx = AttemptContext(task=task, attempt=1, attempt_dir=tmp_path / "a", benchmark=bench)
        result = asyncio.run(harness.run(task, None, None, ctx))
        assert (result.exit_status, result.submission) == expected
        if expected[1] is not None:
            assert result.info["model_name_or_path"] == "tool/m"
        else:  # not run, no prediction.json: the run report lists it as incomplete
            grade = bench.grade_without_env(task, result, ctx)
            assert (grade.reward, grade.details) == (0.0, {"status": "incomplete"})


@pytest.mark.parametrize("case", ["no-such-file", "unknown-pair", "local-environment"])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, calc, case):
    """Nothing runs (the docker environment is selected but never reached)."""
    params = {"dataset_path": str(calc.jsonl), "predictions_path": str(tmp_path / "p.jsonl")}
    env = "docker"
    if case == "no-such-file":
        params["repo_specs"] = CALC_SPECS
        expected = ["predictions_path=", "no such file"]
    elif case == "unknown-pair":
        fixture.write_jsonl([], tmp_path / "p.jsonl")
        expected = ["instance calc__calc-1", "repo 'calc/calc' version '0.1'", "repo_specs"]
    else:
        env, expected = "local", ["grade_in='fresh'", "environment 'local' cannot open", "--env docker"]
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
            env,
            "--benchmark-params",
            json.dumps(params),
            "--results-dir",
            str(tmp_path / "r"),
            "--progress",
            "none",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and all(e in lines[0] for e in expected), proc.stderr
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("result.json"))
