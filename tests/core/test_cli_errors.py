"""Bad input: one clear line naming the key / file / value, exit code 2, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


def cli(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


@pytest.fixture
def bad_yaml(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("runtime: [unclosed\n")
    return str(path)


CASES = [
    (["run", "nosuch"], "unknown benchmark 'nosuch'; valid ids: "),
    (["run", "demo", "nosuch"], "unknown harness 'nosuch'; valid ids: "),
    (["run", "--env", "nosuch"], "unknown environment 'nosuch'; valid ids: "),
    (["run", "--benchmark-params", "{bad"], "--benchmark-params: invalid JSON"),
    (["run", "--harness-params", "[1]"], "--harness-params: expected a JSON object, got list"),
    (["run", "--task-concurrency", "-1"], "runtime.task_concurrency=-1"),
    (["run", "--task-concurrency", "abc"], "invalid int value: 'abc'"),
    (["run", "--benchmark-params", '{"foo": 1}'], "benchmark 'demo': unknown key 'foo'; valid keys:"),
    (["run", "--config", "/nonexistent/x.yaml"], "config file '/nonexistent/x.yaml' does not exist"),
    (["run", "--config", "BAD_YAML"], "is not valid YAML"),
    (["run", "--provider-limit", "docker"], "--provider-limit: expected PROVIDER=VALUE"),
    (["run", "--provider-limit", "docker=0"], "provider limit for 'docker' must be >= 1"),
    (["run", "--env-open-qps", "local=-1"], "env_open_qps for 'local' must be > 0"),
    (["run", "--log-level", "LOUD"], "invalid level 'LOUD'"),
    (["run", "--retry-pattern-list", '["("]'], "invalid regex '('"),
    (["run", "--retry-pattern-list", "[1]"], "expected a JSON array of strings"),
    (["run", "nosuch.key=1"], "nosuch"),
    (["run", "demo", "terminus2", "none"], "harness 'terminus2' needs a model; got model 'none'"),
    (["run", "--timeout-seconds", "0"], "timeout_seconds must be a positive integer"),
    (["run", "--run-id", "../escape"], "output.run_id='../escape'"),
    (["run", "demo", "oracle", "none", "extra"], "at most 3 positional arguments"),
    (["run", "--harness-params", '{"fail_on_error": "maybe"}'], "fail_on_error='maybe'"),
    (["run", "--progress", "fancy"], "invalid choice: 'fancy'"),
    (["run", "--benchmark-params", '{"dataset_path": "/nonexistent/tasks"}'], "/nonexistent/tasks"),
    (["run", "--reuse", "--run-name", "never-ran"], "reuse: no previous run named 'never-ran'"),
    (["run", "--max-retries", "-2"], "execution.max_retries=-2"),
    (["run", "--execution-params", '{"timeouts": {"agent": -5}}'], "execution.timeouts.agent=-5"),
]


@pytest.mark.parametrize("args,expected", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_exits_2_with_one_line(args, expected, bad_yaml, tmp_path):
    args = [bad_yaml if a == "BAD_YAML" else a for a in args]
    proc = cli(*args, "--results-dir", str(tmp_path / "out"))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith("usage:")
             and not ln.startswith("  ")]
    assert len(lines) == 1, proc.stderr
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("result.json"))


def test_debug_log_level_shows_the_traceback(tmp_path):
    proc = cli("run", "demo", "terminus2", "none", "--log-level", "DEBUG", "--results-dir", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" in proc.stderr


def test_help_is_fast_and_imports_nothing_heavy():
    code = ("import sys, agentcompass._cli.main as m\n"
            "heavy = [x for x in ('hydra', 'omegaconf', 'docker', 'openai', 'anthropic', 'pydantic', 'tqdm')"
            " if x in sys.modules]\nprint(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
    assert cli("--help").returncode == 0
