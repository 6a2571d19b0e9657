"""Terminal-Bench 1 tasks (FORMATS.md C6): task.yaml loading, the pytest summary parser (canned pane and log
text), solution.yaml replayed through a real tmux, and grading in the local environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.benchmarks.terminal_bench.tb1 import grade_tb1_output, solution_yaml_script
from agentcompass.benchmarks.terminal_bench.tb1_parsers import all_passed, parse_pytest
from agentcompass.errors import DatasetError
from tests.benchmarks.tb_fixtures import local_provider, run  # noqa: F401  (fixture)

TB1_TASKS = Path(__file__).resolve().parents[2] / "data" / "tb1_tasks"

# what `bash /tests/run-tests.sh` leaves in a tmux pane: the prompt, colours, the -rA report
PANE = """\
root@5f2c:/app# bash /tests/run-tests.sh
============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0
rootdir: /tests
collected 6 items

../tests/test_outputs.py .F.sxX                                          [100%]

=================================== FAILURES ===================================
_________________________________ test_content _________________________________
E       AssertionError: assert 'hi' == 'hi there'
=========================== short test summary info ============================
\x1b[32mPASSED\x1b[0m ../tests/test_outputs.py::test_file_exists
PASSED ../tests/test_outputs.py::test_param[a b]
SKIPPED [1] ../tests/test_outputs.py:20: not on this platform
XFAIL ../tests/test_outputs.py::test_known_bug - reason: known bug
XPASS ../tests/test_outputs.py::test_lucky
FAILED ../tests/test_outputs.py::test_content - AssertionError: assert 'hi' == 'hi there'
=============== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed in 0.05s ===============
root@5f2c:/app#
"""


def test_pytest_parser_reads_every_status_of_a_canned_pane():
    results = parse_pytest(PANE)
    assert results == {  # keyed as Terminal-Bench 1 keys them: after the "::"
        "test_param[a b]": "passed",
        "[1] ../tests/test_outputs.py:20: not on this platform": "passed",  # SKIPPED
        "test_known_bug - reason: known bug": "passed",  # XFAIL keeps its " - " tail
        "test_lucky": "failed",  # XPASS
        "test_content": "failed",  # FAILED, message dropped
    }  # the coloured PASSED line is not a status word
    assert all_passed(results) is False


def test_grading_removes_colour_codes_as_a_pane_capture_would():
    reward, results, error = grade_tb1_output(PANE)
    assert error is None and reward == 0.0
    assert results["test_file_exists"] == "passed" and len(results) == 6


@pytest.mark.parametrize(
    "statuses,passed",
    [
        (["PASSED", "SKIPPED", "XFAIL"], True),  # skipped and xfail count as pass
        (["PASSED", "XPASS"], False),  # an unexpected pass is a failure
        (["PASSED", "ERROR"], False),
        (["FAILED"], False),
    ],
)
def test_pass_rules(statuses, passed):
    log = "== short test summary info ==\n" + "".join(f"{s} t.py::test_{i}\n" for i, s in enumerate(statuses))
    assert all_passed(parse_pytest(log)) is passed
    assert grade_tb1_output(log)[0] == (1.0 if passed else 0.0)


@pytest.mark.parametrize(
    "text,message",
    [
        ("collected 2 items\n\nt.py ..  [100%]\n===== 2 passed in 0.01s =====\n", "no 'short test summary info'"),
        ("bash: pytest: command not found\n", "no 'short test summary info'"),
        ("===== short test summary info =====\n===== no tests ran in 0.01s =====\n", "found no test results"),
    ],
)
def test_missing_or_empty_summary_is_a_verifier_error(text, message):
    reward, results, error = grade_tb1_output(text)
    assert reward is None and results == {} and message in error
    assert all_passed({}) is False  # an empty result is never "all passed"


def bench(path: Path, **kw) -> TerminalBenchBenchmark:
    return TerminalBenchBenchmark(TerminalBenchConfig(dataset_path=str(path), **kw), None)


def test_tb1_fixture_tasks_load():
    b = bench(TB1_TASKS)
    tasks = {t.id: t for t in b.load()}
    assert sorted(tasks) == ["tb1-hello", "tb1-keys"] and b.problems == []
    hello, keys = tasks["tb1-hello"], tasks["tb1-keys"]
    assert hello.instruction.startswith("Create the file /app/greeting.txt")
    assert keys.instruction.startswith("In /app, create a directory `notes`")  # the `descriptions` form
    assert (hello.agent_timeout_s, hello.verifier_timeout_s, hello.workdir) == (120.0, 60.0, "/app")
    assert hello.metadata["format"] == "terminal-bench-1" and hello.metadata["difficulty"] == "easy"
    assert hello.metadata["run_tests_in_same_shell"] is False and "instruction" not in hello.metadata
    spec = b.env_spec(hello)
    assert spec.dockerfile_dir == TB1_TASKS / "tb1-hello" and spec.env == {"TEST_DIR": "/tests"}
    assert b.reference_solution(hello).files == {"/solution/solution.sh": TB1_TASKS / "tb1-hello/solution.sh"}
    assert "tmux send-keys -t agentcompass-oracle 'mkdir -p notes'" in b.reference_solution(keys).command


def write_tb1(
    root: Path,
    task_id: str,
    *,
    yaml_text: str | None = "instruction: do it\n",
    run_tests: str | None = "#!/bin/bash\npython3 -m pytest $TEST_DIR/test_outputs.py -rA -p no:cacheprovider\n",
    dockerfile: str | None = "FROM scratch\nWORKDIR /app\n",
    test_py: str | None = None,
    solution: str | None = "#!/bin/bash\ntrue\n",
) -> Path:
    task = root / task_id
    (task / "tests").mkdir(parents=True)
    for name, text in (
        ("task.yaml", yaml_text),
        ("run-tests.sh", run_tests),
        ("Dockerfile", dockerfile),
        ("tests/test_outputs.py", test_py),
        ("solution.sh", solution),
    ):
        if text is not None:
            (task / name).write_text(textwrap.dedent(text))
    return task


def test_malformed_tb1_tasks_are_reported_with_path_and_field(tmp_path):
    write_tb1(tmp_path, "good")
    write_tb1(tmp_path, "other-parser", yaml_text="instruction: x\nparser_name: junit\n")
    write_tb1(tmp_path, "no-instruction", yaml_text="difficulty: easy\n")
    write_tb1(tmp_path, "bad-timeout", yaml_text="instruction: x\nmax_test_timeout_sec: soon\n")
    write_tb1(tmp_path, "not-yaml", yaml_text="instruction: [unclosed\n")
    write_tb1(tmp_path, "no-runner", run_tests=None)
    write_tb1(tmp_path, "no-dockerfile", dockerfile=None)
    b = bench(tmp_path)
    assert [t.id for t in b.load()] == ["good"]
    problems = {p.task_id: (p.field, p.message, p.path) for p in b.problems}
    assert "parser_name='junit': expected one of pytest, swebench" in problems["other-parser"][1]
    assert "instruction: missing or empty" in problems["no-instruction"][1]
    assert "max_test_timeout_sec='soon'" in problems["bad-timeout"][1]
    assert "not valid YAML" in problems["not-yaml"][1]
    assert problems["no-runner"][:1] == ("run-tests.sh",) and problems["no-runner"][2].endswith("run-tests.sh")
    assert problems["no-dockerfile"][0] == "Dockerfile"
    assert all(problems[k][0] == "task.yaml" for k in ("other-parser", "no-instruction", "bad-timeout", "not-yaml"))


def test_solution_errors(tmp_path):
    task = write_tb1(tmp_path, "nosol", solution=None)
    b = bench(tmp_path)
    [loaded] = b.load()
    with pytest.raises(DatasetError, match="neither solution.sh nor solution.yaml"):
        b.reference_solution(loaded)
    (task / "solution.yaml").write_text("command: not a list\n")
    with pytest.raises(DatasetError, match="non-empty list of steps"):
        b.reference_solution(loaded)
    (task / "solution.yaml").write_text("- min_timeout_sec: 1\n")
    with pytest.raises(DatasetError, match="step 0: expected a mapping with a string 'command'"):
        b.reference_solution(loaded)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this machine")
def test_solution_yaml_keystrokes_run_in_a_real_tmux(tmp_path):
    workdir = tmp_path / "app"
    workdir.mkdir()
    script = solution_yaml_script(TB1_TASKS / "tb1-keys/solution.yaml")
    env = {**os.environ, "TMUX_TMPDIR": str(tmp_path)}  # a private tmux server
    env.pop("TMUX", None)
    try:
        res = subprocess.run(
            ["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        subprocess.run(["tmux", "kill-server"], env=env, capture_output=True, check=False)
    assert res.returncode == 0, res.stderr
    assert (workdir / "notes/todo.txt").read_text() == "buy milk\n"


# --------------------------------------------------------------------------- grading in the local environment

LOCAL_TEST = """\
import os
from pathlib import Path

def test_greeting():
    assert (Path(os.environ["AGENTCOMPASS_WORKDIR"]) / "greeting.txt").read_text().strip() == "hi there"

def test_runner_env():
    assert Path(os.environ["TEST_DIR"], "run-tests.sh").is_file()
"""

GRADING_CASES = {
    # case: (run-tests.sh body or None for the default, write the greeting?, expected reward, error fragment)
    "all pass": (None, True, 1.0, None),
    "a test fails": (None, False, 0.0, None),
    "no summary": (
        "#!/bin/bash\npython3 -m pytest $TEST_DIR/test_outputs.py -q -p no:cacheprovider\n",
        True,
        None,
        "no 'short test summary info'",
    ),
    "timeout": ("#!/bin/bash\nsleep 30\n", True, None, "timed out after 1s"),
}


@pytest.mark.parametrize("case", sorted(GRADING_CASES))
def test_tb1_grading_in_the_local_environment(tmp_path, local_provider, case):  # noqa: F811
    runner, solved, reward, error = GRADING_CASES[case]
    kw = {"run_tests": runner} if runner else {}
    write_tb1(tmp_path / "ds", "t", test_py=LOCAL_TEST, **kw)
    b = bench(tmp_path / "ds", verifier_timeout_s=1 if case == "timeout" else None)
    [task] = b.load()

    async def body():
        env = await local_provider.open(b.env_spec(task))
        try:
            await b.setup(task, env, None)
            await env.write_file("/tests/stale_fake.py", "leftover")  # the agent must not plant tests
            if solved:
                await env.write_file(f"{task.workdir}/greeting.txt", "hi there\n")
            grade = await b.grade(task, env, None, None)
            assert not (Path(env.describe()["workspace"]) / "tests/stale_fake.py").exists()
            return grade
        finally:
            await env.close()

    grade = run(body())
    assert grade.reward == reward, grade.log
    if error is None:
        assert grade.error is None and grade.details["n_tests"] == 2
        assert grade.resolved is (reward == 1.0) and grade.rewards == {"reward": reward}
    else:
        assert grade.error.startswith("VerifierError:") and error in grade.error


def test_multi_container_tb1_task_is_reported_not_run_silently(tmp_path):
    single = write_tb1(tmp_path, "single")
    (single / "docker-compose.yaml").write_text("services:\n  client:\n    build: {dockerfile: Dockerfile}\n")
    multi = write_tb1(tmp_path, "multi")
    (multi / "docker-compose.yaml").write_text(
        "services:\n  client: {build: .}\n  db: {image: postgres}\n  cache: {image: redis}\n"
    )
    b = bench(tmp_path)
    assert [t.id for t in b.load()] == ["single"]
    [problem] = b.problems
    assert (problem.task_id, problem.field) == ("multi", "docker-compose.yaml")
    assert "services cache, db besides 'client'" in problem.message
