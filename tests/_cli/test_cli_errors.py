"""Bad input: one clear line naming the key / file / value, exit code 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def cli(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.fixture
def bad_yaml(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("runtime: [unclosed\n")
    return str(path)


CASES = [
    (["run", "nosuch"], "unknown benchmark 'nosuch'; valid ids: "),
    (["run", "demo", "nosuch"], "unknown harness 'nosuch'; valid ids: "),
    (["run", "--env", "nosuch"], "unknown environment 'nosuch'; valid ids: "),
    (["run", "demo", "oracl"], "unknown harness 'oracl'; did you mean 'oracle'?; valid ids: "),
    (["run", "swebench_verifed"], "unknown benchmark 'swebench_verifed'; did you mean 'swebench_verified'?"),
    (["run", "--env", "dokcer"], "unknown environment 'dokcer'; did you mean 'docker'?; valid ids: "),
    (["run", "--benchmark-params", "{bad"], "--benchmark-params: invalid JSON"),
    (["run", "--harness-params", "[1]"], "--harness-params: expected a JSON object, got list"),
    (["run", "--task-concurrency", "-1"], "runtime.task_concurrency=-1"),
    (["run", "--task-concurrency", "abc"], "invalid int value: 'abc'"),
    (["run", "--benchmark-params", '{"foo": 1}'], "benchmark 'demo': unknown key 'foo'; valid keys:"),
    (["run", "--config", "/nonexistent/x.yaml"], "config file '/nonexistent/x.yaml' does not exist"),
    (["run", "--config", "BAD_YAML"], "is not valid YAML"),
    (["run", "--config", "/"], "config file '/' is a directory, not a YAML file"),
    (
        ["run", "--data-dir", "/etc/hostname/cache"],
        "data_dir='/etc/hostname/cache': Value error, '/etc/hostname' is a file, not a directory",
    ),
    (["run", "--provider-limit", "docker"], "--provider-limit: expected PROVIDER=VALUE"),
    (["run", "--provider-limit", "docker=0"], "provider limit for 'docker' must be >= 1"),
    (["run", "--env-open-qps", "local=-1"], "env_open_qps for 'local' must be > 0"),
    (["run", "--log-level", "LOUD"], "invalid level 'LOUD'"),
    (["run", "--retry-pattern-list", '["("]'], "invalid regex '('"),
    (["run", "--retry-pattern-list", "[1]"], "expected a JSON array of strings"),
    (["run", "nosuch.key=1"], "nosuch"),
    (["run", "foo.bar=1"], "config: unknown key 'foo'; valid keys: benchmark, environment, execution, gateway,"),
    (["run", "harness.max_turnz=5"], "harness 'oracle': unknown key 'max_turnz'; valid keys: fail_on_error"),
    (["run", "execution.max_retriez=5"], "config: unknown key 'execution.max_retriez'; valid keys: analysis_params,"),
    (["run", "demo", "terminus2", "none"], "harness 'terminus2' needs a model; got model 'none'"),
    (["run", "--timeout-seconds", "0"], "runtime.timeout_seconds=0: Input should be greater than 0"),
    (["run", "--timeout-seconds", "1.5"], "timeout_seconds must be an integer for a single request"),
    (["run", "--run-id", "../escape"], "output.run_id='../escape'"),
    (["run", "demo", "oracle", "none", "extra"], "at most 3 positional arguments"),
    (["run", "--harness-params", '{"fail_on_error": "maybe"}'], "fail_on_error='maybe'"),
    (["run", "--progress", "fancy"], "invalid choice: 'fancy'"),
    (["run", "--benchmark-params", '{"dataset_path": "/nonexistent/tasks"}'], "/nonexistent/tasks"),
    (["run", "--reuse", "--run-name", "never-ran"], "reuse: no previous run named 'never-ran'"),
    (["run", "--max-retries", "-2"], "execution.max_retries=-2"),
    (["run", "--execution-params", '{"timeouts": {"agent": -5}}'], "execution.timeouts.agent=-5"),
    (["run", "--recipe-dir", "/nonexistent/recipes"], "runtime.recipe_dirs: '/nonexistent/recipes' does not exist"),
    (
        ["run", "--execution-params", '{"artifacts": {"prepare": [{"src": "/nonexistent/src", "dst": "/app/x"}]}}'],
        "execution.artifacts.prepare.0.src='/nonexistent/src': Value error, does not exist on this host",
    ),
    (
        ["run", "synthetic", "nop", "none", "--env", "memory", "benchmark.n_tasks=1e9"],
        "n_tasks=1000000000.0: Input should be less than or equal to 100000",
    ),
    (
        ["run", "demo", "oracle", "some-model", "--model-base-url", "not a url"],
        "base_url='not a url': Value error, not",
    ),
    (["run", "demo", "oracle", "some-model", "--model-base-url", "http://h:99999/v1"], "the port is not a number"),
]


@pytest.mark.parametrize("args,expected", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_exits_2_with_one_line(args, expected, bad_yaml, tmp_path):
    args = [bad_yaml if a == "BAD_YAML" else a for a in args]
    proc = cli(*args, "--results-dir", str(tmp_path / "out"))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [
        ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith("usage:") and not ln.startswith("  ")
    ]
    assert len(lines) == 1, proc.stderr
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "out").exists(), sorted(str(p) for p in (tmp_path / "out").rglob("*"))  # nothing written


@pytest.mark.parametrize(
    "args,flag",
    [
        (["run", "--benchmark-params", "{bad"], "--benchmark-params"),
        (["run", "--harness-params", "[1]"], "--harness-params"),
        (["run", "--retry-pattern-list", "[1]"], "--retry-pattern-list"),
        (["run", "--provider-limit", "docker"], "--provider-limit"),
        (["list", "tasks", "demo", "--benchmark-params", "{bad"], "--benchmark-params"),
    ],
)
def test_a_bad_value_names_its_option_once(args, flag):
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.count(flag) == 1 and f"argument {flag}: " in line, line


def test_debug_log_level_shows_the_traceback(tmp_path):
    proc = cli("run", "demo", "terminus2", "none", "--log-level", "DEBUG", "--results-dir", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" in proc.stderr


def test_help_is_fast_and_imports_nothing_heavy():
    code = (
        "import sys, agentcompass._cli.main as m\n"
        "heavy = [x for x in ('hydra', 'omegaconf', 'docker', 'openai', 'anthropic', 'pydantic', 'tqdm')"
        " if x in sys.modules]\nprint(heavy)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
    assert cli("--help").returncode == 0


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--task-concurrency", "abc"],
        ["run", "--nosuch-option"],
        ["launch"],
        ["--nosuch"],
        ["run", "--progress", "fancy"],
    ],
)
def test_argparse_errors_are_one_line_naming_help(args):
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()  # not the 20-line usage
    assert line.startswith("agentcompass") and ": error: " in line and line.endswith("--help')"), line


def test_version():
    from agentcompass import __version__

    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"agentcompass {__version__}"


@pytest.mark.parametrize("where", ["file", "under-a-file", "read-only"])
def test_an_unusable_results_dir_is_one_line(where, tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    target = {"file": blocker, "under-a-file": blocker / "sub", "read-only": Path("/sys/kernel/agentcompass-x")}[where]
    proc = cli("run", "--results-dir", str(target), "--progress", "none")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"agentcompass: error: results_dir '{target}' cannot hold run directories: "), line
    assert "Errno" not in line
    if where != "read-only":
        assert "'" + str(blocker) + "' is a file, not a directory" in line
    assert blocker.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_an_invalid_request_name_in_an_orchestration_file_exits_2(tmp_path):
    path = tmp_path / "orch.yaml"
    path.write_text("version: 1\nrequests:\n  - name: ../escape\n    benchmark: {id: demo}\n")
    proc = cli("launch", str(path), "--results-dir", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "requests.0.name='../escape'" in line and "directory name" in line
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape").exists()


def test_sdk_bad_calls_are_config_errors(tmp_path):
    """A value of the wrong type is an ArgumentError (a ConfigError and a TypeError) in one line; a positional
    argument or a misspelt keyword is Python's own TypeError: the entry points are ordinary functions."""
    from agentcompass import ConfigError, launch, run_evaluation
    from agentcompass.errors import ArgumentError

    calls = {
        "config_path": (lambda: run_evaluation(config_path=5), "config_path=5: Input should be a valid string"),
        "overrides": (lambda: run_evaluation(overrides="x=1"), "overrides='x=1': 'str' instances are not allowed"),
        "secret": (lambda: run_evaluation(model_api_key=12345678), "model_api_key=<a int, not shown>"),
        "launch type": (lambda: launch(5), "orchestration must be an OrchestrationSpec"),
        "launch settings": (lambda: launch({"requests": [{"name": "a"}]}, settings={}), "settings must be a"),
    }
    for what, (call, expected) in calls.items():
        with pytest.raises(ConfigError) as info:
            call()
        assert isinstance(info.value, ArgumentError) and isinstance(info.value, TypeError), what
        assert expected in str(info.value), (what, str(info.value))
        assert "\n" not in str(info.value) and "12345678" not in str(info.value)
    python_errors = {
        "positional": (lambda: run_evaluation("demo"), "run_evaluation() takes 0 positional arguments"),  # type: ignore[misc]
        "unknown": (lambda: run_evaluation(task_concurency=2), "unexpected keyword argument 'task_concurency'"),  # type: ignore[call-arg]
        "launch positional": (lambda: launch({"requests": [{"name": "a"}]}, 4), "positional argument"),  # type: ignore[misc]
    }
    for what, (call, expected) in python_errors.items():
        with pytest.raises(TypeError) as info:
            call()
        assert not isinstance(info.value, ConfigError) and expected in str(info.value), (what, str(info.value))


@pytest.mark.parametrize("command", ["run", "launch", "config"])
def test_every_option_has_help_text(command):
    from agentcompass._cli.main import command_parser

    _, parser = command_parser(command)
    bare = [a.option_strings or [a.dest] for a in parser._actions if not (a.help or "").strip()]
    assert bare == [], bare
    assert "(default: 4)" in parser.format_help()  # the schema's defaults are shown


def test_every_argument_of_every_command_has_help_text():
    from agentcompass._cli.main import COMMANDS, command_parser

    bare = {}
    for command in COMMANDS:
        _, parser = command_parser(command)
        missing = [a.option_strings or [a.dest] for a in parser._actions if not (a.help or "").strip()]
        if missing:
            bare[command] = missing
    assert bare == {}, bare


def test_the_end_of_run_table_shows_whole_error_messages():
    from agentcompass._sdk import format_result

    message = "SandboxError: " + "x" * 120 + " the part that matters"
    row = {
        "task_id": "t",
        "status": "error",
        "reward": None,
        "attempts": 1,
        "duration_s": 1.0,
        "error": {"type": "SandboxError", "message": message},
    }
    metrics = {
        "n_tasks": 1,
        "n_tries": 1,
        "n_errors": 1,
        "n_retries": 0,
        "mean_reward": 0.0,
        "mean_reward_valid": None,
        "n_valid_rewards": 0,
        "pass_rate": 0.0,
        "tokens": {"input": 0},
        "cost_usd": 0.0,
    }
    text = format_result(
        {
            "metadata": {"run_name": "r", "run_id": "i", "status": "failed", "duration_s": 1.0},
            "metrics": metrics,
            "summary": {"tasks": [row]},
            "paths": {"run_dir": "/x"},
        }
    )
    assert message + "\n" in text + "\n" and text.count("the part that matters") == 1


SDK_CASES = {
    "recipe dir": ({"recipe_dirs": ["/nonexistent/recipes"]}, "runtime.recipe_dirs: '/nonexistent/recipes' does not"),
    "prepare": (
        {"execution_params": {"artifacts": {"prepare": [{"src": "/nonexistent/src", "dst": "/app/x"}]}}},
        "prepare.0.src='/nonexistent/src': Value error, does not exist on this host",
    ),
    "results dir": ({"results_dir": "BLOCKER"}, "cannot hold run directories: 'BLOCKER' is a file, not a directory"),
    "data dir": ({"data_dir": "BLOCKER/sub"}, "data_dir='BLOCKER/sub': Value error, 'BLOCKER' is a file"),
    "n_tasks": (
        {
            "benchmark": "synthetic",
            "harness": "nop",
            "model": "none",
            "environment": "memory",
            "overrides": ["benchmark.n_tasks=1e9"],
        },
        "n_tasks=1000000000.0: Input should be less than",
    ),
    "base url": ({"harness": "oracle", "model": "some-model", "model_base_url": "not a url"}, "base_url='not a url'"),
}


@pytest.mark.parametrize("what", list(SDK_CASES))
def test_the_sdk_raises_one_line_config_errors_for_the_same_input(what, tmp_path):
    from agentcompass import ConfigError, run_evaluation

    blocker = tmp_path / "afile"
    blocker.write_text("x")
    kw, expected = SDK_CASES[what]
    kw = dict(kw)
    for key in ("results_dir", "data_dir"):
        if key in kw:
            kw[key] = kw[key].replace("BLOCKER", str(blocker))
    with pytest.raises(ConfigError) as info:
        run_evaluation(**{"results_dir": str(tmp_path / "out"), "progress": "none", **kw})
    assert expected.replace("BLOCKER", str(blocker)) in str(info.value) and "\n" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing written


def test_the_sdk_refuses_an_invalid_request_name(tmp_path):
    from agentcompass import ConfigError, launch

    with pytest.raises(ConfigError, match=r"requests\.0\.name='\.\./escape'"):
        launch(
            {"version": 1, "requests": [{"name": "../escape", "benchmark": {"id": "demo"}}]},
            results_dir=str(tmp_path / "out"),
        )
    assert list(tmp_path.iterdir()) == []


def test_a_harness_that_calls_no_model_needs_no_key(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    results = ["--results-dir", str(tmp_path), "--progress", "none"]
    proc = cli("run", "demo", "oracle", "gpt-x", *results, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "mean_reward=1.0000" in proc.stdout
    needs = ["harness._target_=tests.helpers.ModelEchoHarness"]  # a harness that calls the model: no key, no run
    proc = cli("run", "demo", "oracle", "gpt-x", *needs, *results, env=env, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line == (
        "agentcompass: error: model 'gpt-x': no API key for api.openai.com: set OPENAI_API_KEY or model.api_key"
    )
