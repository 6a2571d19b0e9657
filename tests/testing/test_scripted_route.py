"""The scripted-model route exactly as the docs write it: the server started with the documented command (on a free
port, through AGENTCOMPASS_SCRIPTED_PORT), then the documented run, which must pass every task it runs."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentcompass.testing.scripted_server.script import EXAMPLES_DIR

REPO = Path(__file__).resolve().parents[2]
DEMO_TASKS = sorted(p.parent.name for p in (REPO / "agentcompass/benchmarks/demo_tasks").glob("*/task.toml"))

pytestmark = pytest.mark.slow


def block_after(text: str, anchor: str, lang: str) -> str:
    """The first fenced ``lang`` block after ``anchor``."""
    rest = text[text.index(anchor) :]
    start = rest.index(f"```{lang}\n") + len(lang) + 4
    return rest[start : rest.index("\n```", start)]


def commands(block: str) -> list[str]:
    """The shell commands of a block or of comment lines, backslash continuations joined."""
    out: list[str] = []
    for line in (raw.strip() for raw in block.splitlines()):
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1].rstrip() + " " + line
        elif line:
            out.append(line)
    return out


def example_commands(name: str) -> list[str]:
    """The two commands an example file's header gives (start the server, run)."""
    header = [line for line in (EXAMPLES_DIR / f"{name}.yaml").read_text().splitlines() if line.startswith("#   ")]
    return commands("\n".join(line[1:] for line in header))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_route(server_line: str, run_line: str, cwd: Path) -> list[dict]:
    """Start the server as ``server_line`` says (its ``--port`` replaced by a free one, exported as
    AGENTCOMPASS_SCRIPTED_PORT), run ``run_line`` in ``cwd``; the rows of the run's results.jsonl."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "AGENTCOMPASS_SCRIPTED_PORT": str(port)}
    server = shlex.split(server_line.removesuffix("&").strip())
    assert server[:3] == ["python", "-m", "agentcompass.testing.scripted_server"], server_line
    server[server.index("--port") + 1] = str(port)
    run = shlex.split(run_line)
    assert run[0] == "agentcompass", run_line
    proc = subprocess.Popen([sys.executable, *server[1:]], cwd=cwd, env=env, stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        assert proc.poll() is None, "the scripted server exited"
        done = subprocess.run(
            [sys.executable, "-m", *run], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    (results,) = cwd.glob("outputs/*/*/results.jsonl")
    return [json.loads(line) for line in results.read_text().splitlines()]


def assert_all_solved(rows: list[dict], task_ids: list[str]) -> None:
    assert sorted(r["task_id"] for r in rows) == sorted(task_ids)
    assert all(r["status"] == "completed" and r["reward"] == 1.0 for r in rows), rows


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="terminus2 runs tmux on the host")


@needs_tmux
def test_the_readme_route_passes_the_whole_demo_with_terminus2(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    server_line, run_line = commands(block_after(readme, "No endpoint at hand?", "bash"))
    assert "--task-concurrency 8" in run_line and " terminus2 " in run_line
    assert_all_solved(run_route(server_line, run_line, tmp_path), DEMO_TASKS)


@needs_tmux
def test_the_format_example_of_the_docs_solves_its_task(tmp_path: Path) -> None:
    doc = (REPO / "docs/models.md").read_text(encoding="utf-8")
    (tmp_path / "replies.yaml").write_text(block_after(doc, "**The format.**", "yaml") + "\n")
    server_line, run_line = commands(block_after(doc, "**The format.**", "bash"))
    assert "--script replies.yaml" in server_line
    assert_all_solved(run_route(server_line, run_line, tmp_path), ["hello-file"])


@pytest.mark.skipif(
    importlib.util.find_spec("minisweagent") is None, reason="pip install 'agentcompass[mini-swe-agent]'"
)
def test_the_mini_swe_agent_example_passes_the_whole_demo(tmp_path: Path) -> None:
    server_line, run_line = example_commands("mini_swe_agent")
    assert "--task-concurrency 8" in run_line
    assert_all_solved(run_route(server_line, run_line, tmp_path), DEMO_TASKS)


def test_the_tool_agent_example_passes_every_calculator_task(tmp_path: Path) -> None:
    server_line, run_line = example_commands("tool_agent")
    n_tasks = json.loads(shlex.split(run_line)[-1])["n_tasks"]
    assert n_tasks > 1 and "--task-concurrency 8" in run_line
    assert_all_solved(run_route(server_line, run_line, tmp_path), [f"syn-{i}" for i in range(n_tasks)])
