"""SDK keywords are checked strictly against the options table; the CLI and config files keep parsing text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import launch, run_evaluation
from agentcompass.errors import ArgumentError

WRONG = [
    ("task_concurrency", "4", "Input should be a valid integer (expected int)"),
    ("task_concurrency", 4.0, "Input should be a valid integer"),
    ("task_concurrency", True, "Input should be a valid integer"),
    ("max_retries", "2", "Input should be a valid integer"),
    ("n_attempts", "3", "Input should be a valid integer"),
    ("timeout_seconds", "60", "Input should be a valid number"),
    ("keep_environment", 1, "Input should be a valid boolean"),
    ("reuse", "yes", "Input should be a valid boolean"),
    ("provider_limits", {"docker": "2"}, "at docker: Input should be a valid integer"),
    ("env_open_qps", {"local": "1.5"}, "at local: Input should be a valid number"),
    ("enabled_recipes", "git_snapshot", "'str' instances are not allowed"),
    ("retry_pattern_list", [1], "at 0: Input should be a valid string"),
]


@pytest.mark.parametrize(("key", "value", "expected"), WRONG, ids=[f"{k}={v!r}" for k, v, _ in WRONG])
def test_a_value_of_the_wrong_type_is_an_argument_error(key, value, expected, tmp_path):
    results = tmp_path / "results"
    with pytest.raises(ArgumentError) as info:
        run_evaluation(**{key: value}, results_dir=results, progress="none")
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    assert message.startswith(f"run_evaluation(): {key}=") and expected in message, message
    assert "\n" not in message
    assert not results.exists()  # nothing ran, nothing written


def test_launch_keywords_are_strict_too(tmp_path):
    spec = {"name": "x", "requests": [{"name": "a", "benchmark": {"id": "demo"}}]}
    with pytest.raises(ArgumentError, match=r"launch\(\): task_concurrency='4': Input should be a valid integer"):
        launch(spec, task_concurrency="4", results_dir=tmp_path / "r")
    with pytest.raises(ArgumentError, match=r"cleanup_grace_seconds='1': Input should be a valid number"):
        launch(spec, cleanup_grace_seconds="1", results_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_values_of_the_right_type_still_run(tmp_path):
    """An int is a float, a Path is a path, a tuple is a sequence: none of these is refused."""
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"sample_ids": ["hello-file"]},
        task_concurrency=2,
        timeout_seconds=600,
        env_open_qps={"local": 50},
        enabled_recipes=(),
        results_dir=Path(tmp_path / "results"),
        progress="none",
    )
    assert result["metrics"]["n_tasks"] == 1 and result["metrics"]["mean_reward"] == 1.0
    assert result["metadata"]["config"]["runtime"]["task_concurrency"] == 2


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_the_cli_and_config_files_keep_parsing_text(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text('runtime:\n  task_concurrency: "3"\nexecution:\n  max_retries: "1"\n')
    results = tmp_path / "results"
    args = ["run", "synthetic", "oracle", "none", "--env", "memory", "benchmark.n_tasks=2", "--progress", "none"]
    done = _cli(
        *args, "--config", str(config), "--env-open-qps", "memory=2", "--results-dir", str(results), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    (summary,) = results.glob("*/*/summary.json")
    config_used = json.loads(summary.read_text())["metadata"]["config"]
    # config.yaml keeps the text as the file gave it; the schema read it as a number
    assert int(config_used["runtime"]["task_concurrency"]) == 3 and int(config_used["execution"]["max_retries"]) == 1
    assert config_used["runtime"]["env_open_qps"] == {"memory": 2.0}


def test_the_cli_refuses_text_that_is_no_number_in_one_line(tmp_path):
    results = tmp_path / "results"
    done = _cli("run", "--task-concurrency", "four", "--results-dir", str(results), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--task-concurrency: invalid int value: 'four'" in lines[0], done.stderr
    assert not results.exists()
