"""Harnesses and helpers for whole-run tests driven through the CLI in a subprocess (signals, locks, kills)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.interfaces import AgentResult

REPO = Path(__file__).resolve().parents[1]


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gate: str = ""  # the tasks in `gated` wait until this file exists
    gated: list[str] = []  # task ids that wait (empty: every task)
    log: str = ""  # one line "<task> <attempt> <pid>" appended per agent run


class GateHarness:
    """Submits the reference answer, but gated tasks first wait for the gate file (a run held open at will)."""

    requires_model: ClassVar[bool] = False
    config_class = GateConfig

    def __init__(self, config: GateConfig, ctx=None) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        c = self.config
        if c.log:
            with open(c.log, "a", encoding="utf-8") as fh:
                fh.write(f"{task.id} {ctx.attempt} {os.getpid()}\n")
        if c.gate and (not c.gated or task.id in c.gated):
            while not os.path.exists(c.gate):
                await asyncio.sleep(0.05)
        return AgentResult(submission=ctx.benchmark.reference_solution(task).submission, n_turns=1)


class ExecConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = "sleep 300"
    timeout_s: float = 600


class ExecHarness:
    """Runs one command in the environment (e.g. a long one that leaves a daemon behind), then submits nothing."""

    requires_model: ClassVar[bool] = False
    config_class = ExecConfig

    def __init__(self, config: ExecConfig, ctx=None) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        await env.exec(self.config.command, timeout=self.config.timeout_s)
        return AgentResult(submission="", n_turns=1)


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{REPO}{os.pathsep}{env['PYTHONPATH']}" if env.get("PYTHONPATH") else str(REPO)
    return env


def start_cli(*args: str, **popen) -> subprocess.Popen:
    """``python -m agentcompass ARGS`` in its own session (so a test can kill its whole group)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, "-m", "agentcompass", *args],
        cwd=REPO,
        env=cli_env(),
        text=True,
        start_new_session=True,
        **popen,
    )


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args],
        cwd=REPO,
        env=cli_env(),
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def processes_with(needle: str) -> list[int]:
    """Pids of live (not zombie) processes whose environment contains ``needle``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry.name}/environ").read_bytes()
            stat = Path(f"/proc/{entry.name}/stat").read_bytes()
        except OSError:
            continue
        if needle.encode() in environ and stat.rsplit(b")", 1)[1].split()[:1] != [b"Z"]:
            found.append(int(entry.name))
    return found


EXEC = "tests.run_support.ExecHarness"
# a long command that also leaves a daemon in a session of its own
COMMAND = '+harness.command="setsid sleep 321 </dev/null >/dev/null 2>&1 & sleep 321"'


def terminate(proc, timeout: float = 90) -> tuple[int, str]:
    os.kill(proc.pid, signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=timeout)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return proc.returncode, err


def check_cancelled(run_dir: Path) -> None:
    assert read_json(run_dir / "run.json")["status"] == "cancelled"
    summary = read_json(run_dir / "summary.json")
    assert summary["metadata"]["status"] == "cancelled"
    assert not (run_dir / "run.lock").exists()
