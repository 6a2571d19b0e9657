"""Terminal-Bench 1 tasks (FORMATS.md C6): ``task.yaml``, root ``Dockerfile``, ``run-tests.sh``, ``solution.sh``
or ``solution.yaml``, ``tests/``.

- ``task.yaml``: ``instruction`` (or the older ``descriptions`` list, key ``base``), ``parser_name`` (default
  ``pytest``; every parser of Terminal-Bench 1, :mod:`.tb1_parsers`), ``max_agent_timeout_sec`` (default 360),
  ``max_test_timeout_sec`` (default 60); every other key is kept as metadata. ``docker-compose.yaml`` is not
  used: the root ``Dockerfile`` is built with the task directory as context, and ``TEST_DIR=/tests`` is set in
  the environment as the compose file would.
- grading: ``tests/`` and ``run-tests.sh`` are uploaded to ``/tests`` after the agent; ``bash /tests/run-tests.sh``
  runs from the workdir under the test timeout, its output goes to ``/logs/verifier/test-stdout.txt`` and is
  parsed (terminal colour codes removed, as a tmux pane capture has none) by the task's parser. Reward 1 iff
  every parsed test passed, else 0; a parse error, an empty result or a timeout is a verifier error.
- reference solution: ``solution.sh`` (uploaded to ``/solution/solution.sh`` and run from the workdir), else
  ``solution.yaml`` keystroke steps ``{command, min_timeout_sec, max_timeout_sec, block, append_enter}`` replayed
  into a tmux session inside the environment (tmux must be in the image).
"""

from __future__ import annotations

import math
import re
import shlex
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agentcompass.benchmarks.terminal_bench.task_toml import TaskSpec
from agentcompass.benchmarks.terminal_bench.tb1_parsers import PARSERS, all_passed, get_parser
from agentcompass.benchmarks.terminal_bench.verifier import LOG_TAIL_BYTES, TESTS_PATH, VERIFIER_LOGS, VerifierOutcome
from agentcompass.errors import DatasetError, SandboxError, VerifierError
from agentcompass.interfaces import Solution

DEFAULT_AGENT_TIMEOUT_S = 360.0
DEFAULT_TEST_TIMEOUT_S = 60.0
SOLUTION_SH_COMMAND = 'bash "${AGENTCOMPASS_SOLUTION_DIR:-/solution}/solution.sh"'
_NOT_METADATA = ("instruction", "descriptions", "max_agent_timeout_sec", "max_test_timeout_sec")
_SESSION = "agentcompass-oracle"


def _seconds(data: dict[str, object], key: str, default: float, path: Path) -> float:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise DatasetError(f"{path}: {key}={value!r}: expected a positive number of seconds")
    return float(value)


def _instruction(data: dict[str, object], path: Path) -> str:
    text = data.get("instruction")
    descriptions = data.get("descriptions")
    if text is None and isinstance(descriptions, list):
        text = next(
            (d.get("description") for d in descriptions if isinstance(d, dict) and d.get("key") == "base"), None
        )
    if not isinstance(text, str) or not text.strip():
        raise DatasetError(f"{path}: instruction: missing or empty (a non-empty string is required)")
    return text


def parse_task_yaml(path: Path) -> tuple[TaskSpec, str]:
    """The TaskSpec and the instruction of a TB1 ``task.yaml``; a DatasetError names the file and the field."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DatasetError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    parser = data.get("parser_name", "pytest")
    if parser not in PARSERS:
        raise DatasetError(f"{path}: parser_name={parser!r}: expected one of {', '.join(PARSERS)}")
    metadata = {k: v for k, v in data.items() if k not in _NOT_METADATA}
    metadata.update({"format": "terminal-bench-1", "parser_name": parser})
    spec = TaskSpec(
        path=Path(path),
        metadata=metadata,
        agent_timeout_s=_seconds(data, "max_agent_timeout_sec", DEFAULT_AGENT_TIMEOUT_S, path),
        verifier_timeout_s=_seconds(data, "max_test_timeout_sec", DEFAULT_TEST_TIMEOUT_S, path),
        environment_env={"TEST_DIR": TESTS_PATH},
    )
    return spec, _instruction(data, path)


# --------------------------------------------------------------------------- reference solution


def _step_lines(step: Any, index: int, path: Path) -> list[str]:
    if not isinstance(step, dict) or not isinstance(step.get("command"), str):
        raise DatasetError(f"{path}: step {index}: expected a mapping with a string 'command'")
    command, enter = step["command"], bool(step.get("append_enter", False))
    min_t, max_t = float(step.get("min_timeout_sec", 0) or 0), float(step.get("max_timeout_sec", 180) or 180)
    if command.endswith("\n"):
        command, enter = command[:-1], True
    target = f"-t {_SESSION}"
    lines = [f"tmux send-keys {target} {shlex.quote(command)}"] if command else []
    if step.get("block") and enter:
        lines += [
            f"tmux send-keys {target} {shlex.quote(f' ; tmux wait -S {_SESSION}-done')} Enter",
            f"timeout {max_t:g} tmux wait {_SESSION}-done || echo 'step {index}: not done after {max_t:g}s' >&2",
        ]
    elif enter:
        lines.append(f"tmux send-keys {target} Enter")
    if min_t > 0:
        lines.append(f"sleep {min_t:g}")
    return lines


def solution_yaml_script(path: Path) -> str:
    """A bash script replaying ``solution.yaml`` keystroke steps into a tmux session in the workdir."""
    import yaml

    try:
        steps = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DatasetError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(steps, list) or not steps:
        raise DatasetError(
            f"{path}: expected a non-empty list of steps {{command, min_timeout_sec, block, append_enter}}"
        )
    lines = [
        "command -v tmux >/dev/null || { echo 'solution.yaml needs tmux in the task image' >&2; exit 127; }",
        f"tmux kill-session -t {_SESSION} 2>/dev/null",
        f'tmux new-session -d -s {_SESSION} -x 200 -y 50 -c "$PWD"',
    ]
    for index, step in enumerate(steps):
        lines += _step_lines(step, index, path)
    lines.append(f"tmux kill-session -t {_SESSION} 2>/dev/null; true")
    return "\n".join(lines) + "\n"


def tb1_solution(task_path: Path) -> Solution:
    """``solution.sh`` (preferred) or ``solution.yaml``; a DatasetError when there is neither."""
    script, steps = task_path / "solution.sh", task_path / "solution.yaml"
    if script.is_file():
        return Solution(files={"/solution/solution.sh": script}, command=SOLUTION_SH_COMMAND)
    if steps.is_file():
        return Solution(command=solution_yaml_script(steps))
    raise DatasetError(f"{task_path}: neither solution.sh nor solution.yaml; the task has no reference solution")


# --------------------------------------------------------------------------- grading


def _stage_tests(task_path: Path, staging: Path) -> Path:
    tests = staging / "tests"
    if (task_path / "tests").is_dir():
        shutil.copytree(task_path / "tests", tests, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        tests.mkdir()
    shutil.copy2(task_path / "run-tests.sh", tests / "run-tests.sh")
    return tests


async def _upload_tests(env: Any, task_path: Path) -> None:
    def q(path: str) -> str:
        return shlex.quote(env.path(path))

    res = await env.exec(
        f"rm -f {q(VERIFIER_LOGS)}/reward.txt {q(VERIFIER_LOGS)}/reward.json && "
        f"rm -rf {q(TESTS_PATH)} && mkdir -p {q(VERIFIER_LOGS)}",
        timeout=120,
    )
    if res.exit_code != 0:
        raise SandboxError(f"verifier: cannot clear {VERIFIER_LOGS} / {TESTS_PATH}: {res.output.strip()[:300]}")
    with tempfile.TemporaryDirectory(prefix="agentcompass-tb1-") as tmp:
        await env.upload(_stage_tests(task_path, Path(tmp)), TESTS_PATH)


_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def grade_tb1_output(text: str, parser_name: str = "pytest") -> tuple[float | None, dict[str, str], str | None]:
    """(reward, parsed results, error) of a test output: reward 1.0 iff every result passed, else 0.0; no reward
    and an error on a parse error or an empty result."""
    try:
        results = get_parser(parser_name)(_ANSI_RE.sub("", text))
    except VerifierError as exc:
        return None, {}, f"VerifierError: {exc}"
    if not results:
        return None, {}, f"VerifierError: parse error: the {parser_name} parser found no test results"
    return (1.0 if all_passed(results) else 0.0), results, None


async def run_tb1_verifier(
    env: Any,
    task_path: Path,
    *,
    workdir: str,
    timeout_s: float,
    env_vars: dict[str, str] | None = None,
    parser_name: str = "pytest",
) -> tuple[VerifierOutcome, dict[str, str]]:
    """Run ``run-tests.sh`` and grade its output with the task's parser; returns the outcome and the results."""
    await _upload_tests(env, Path(task_path))
    out_path = f"{VERIFIER_LOGS}/test-stdout.txt"
    command = f"bash {shlex.quote(env.path(TESTS_PATH + '/run-tests.sh'))} > {shlex.quote(env.path(out_path))} 2>&1"
    start = time.monotonic()
    res = await env.exec(
        command, timeout=timeout_s, cwd=workdir, env={**(env_vars or {}), "TEST_DIR": env.path(TESTS_PATH)}
    )
    outcome = VerifierOutcome(
        exit_code=None if res.timed_out else res.exit_code,
        timed_out=res.timed_out,
        duration_s=time.monotonic() - start,
        source="run-tests.sh",
    )
    text = (await env.read_file(out_path)).decode("utf-8", errors="replace")
    outcome.log = text[-LOG_TAIL_BYTES:]
    if res.timed_out:
        outcome.error = f"VerifierError: tests timed out after {timeout_s:g}s"
        return outcome, {}
    outcome.reward, results, outcome.error = grade_tb1_output(text, parser_name)
    if outcome.reward is not None:
        outcome.rewards = {"reward": outcome.reward}
    return outcome, results
