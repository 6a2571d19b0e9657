"""What the keyword-takes-effect tests run and read: a recording harness, and one run's record on disk."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import AgentError
from agentcompass.interfaces import AgentResult

RECORDING = "tests._sdk.keyword_support.RecordingHarness"


class RecordingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = 0.0
    tag: str = ""
    fail_first: bool = False  # the first attempt of every task fails (AgentError, not retryable)
    linger_s: float = 0.0  # when cancelled, keep running this long before giving up


class RecordingHarness:
    """Solves synthetic tasks, and records what it was handed (data_dir, auto-install, start times, how many
    ran at once) in each attempt's ``agent.info``; logs a DEBUG, an INFO and a WARNING line per attempt."""

    requires_model: ClassVar[bool] = False
    config_class = RecordingConfig
    running: ClassVar[int] = 0
    max_running: ClassVar[int] = 0
    calls: ClassVar[list[str]] = []
    cancelled: ClassVar[list[str]] = []
    lingered: ClassVar[list[str]] = []

    def __init__(self, config: RecordingConfig, ctx: Any) -> None:
        self.config, self.component_ctx = config, ctx

    @classmethod
    def reset(cls) -> None:
        cls.running = cls.max_running = 0
        cls.calls, cls.cancelled, cls.lingered = [], [], []

    async def run(self, task: Any, env: Any, model: Any, ctx: Any) -> AgentResult:
        cls = type(self)
        cls.calls.append(task.id)
        cls.running += 1
        cls.max_running = max(cls.max_running, cls.running)
        started = time.monotonic()
        ctx.logger.debug("kw-debug-line %s", task.id)
        ctx.logger.info("kw-info-line %s", task.id)
        ctx.logger.warning("kw-warning-line %s", task.id)
        try:
            await asyncio.sleep(self.config.sleep_s)
        except asyncio.CancelledError:
            cls.cancelled.append(task.id)
            if self.config.linger_s:
                await asyncio.sleep(self.config.linger_s)
                cls.lingered.append(task.id)  # not cancelled again while lingering
            raise
        finally:
            cls.running -= 1
        if self.config.fail_first and ctx.attempt == 1:
            raise AgentError("flaky first attempt")
        info = {
            "data_dir": str(self.component_ctx.data_dir),
            "tag": self.config.tag,
            "started": started,
            "auto_install": [self.component_ctx.auto_install_dependencies, ctx.auto_install_dependencies],
        }
        return AgentResult(submission=ctx.benchmark.reference_solution(task).submission, n_turns=1, info=info)


@dataclass
class Outcome:
    """One run (SDK or CLI) and its record on disk."""

    run_dir: Path
    result: dict[str, Any] | None = None  # what run_evaluation returned (SDK)
    error: BaseException | None = None  # what it raised (SDK)
    code: int | None = None  # the exit code (CLI)
    out: str = ""
    err: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        path = self.run_dir / "results.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []

    def attempt(self, task_id: str, n: int = 1) -> dict[str, Any]:
        return json.loads((self.run_dir / "tasks" / task_id / "sample-1" / f"attempt-{n}" / "result.json").read_text())

    def infos(self) -> list[dict[str, Any]]:
        return [self.attempt(r["task_id"], r["attempts"])["agent"]["info"] for r in self.rows()]

    def summary(self) -> dict[str, Any]:
        return json.loads((self.run_dir / "summary.json").read_text())

    def run_json(self) -> dict[str, Any]:
        return json.loads((self.run_dir / "run.json").read_text())


def to_argv(kw: dict[str, Any]) -> list[str] | None:
    """The command-line arguments saying what SDK keywords ``kw`` say, built from the options table; None when
    a keyword has no command-line form."""
    from agentcompass._config import options

    rows, positionals, overrides, argv = options.by_name(), {}, [], []
    for name, value in kw.items():
        row = rows[name]
        if name == "reuse_run_id":
            argv += ["--reuse", str(value)]
            continue
        if row.cli is None:
            return None
        if name == "overrides":
            overrides = list(value)
        elif row.form == "positional":
            positionals[name] = str(value)
        elif row.form == "reuse":
            argv += [] if "reuse_run_id" in kw else [row.cli]
        else:
            argv += _flag(row, value)
    ordered = [positionals[g] for g in ("benchmark", "harness", "model") if g in positionals]
    assert len(ordered) == len(positionals), "give benchmark, harness and model together on the command line"
    return [*ordered, *argv, *overrides]


def _flag(row: Any, value: Any) -> list[str]:
    flag, form = row.cli, row.form
    if form == "flag":
        assert value is True, f"{row.name}={value!r} has no command-line form"
        return [flag]
    if form == "no-flag":
        assert value is False, f"{row.name}={value!r} has no command-line form"
        return [flag]
    if form.startswith("keyed-"):
        return [x for k, v in value.items() for x in (flag, f"{k}={v}")]
    if form in ("json-object", "json-list") or (form == "protocol" and isinstance(value, list)):
        return [flag, json.dumps(value)]
    if form == "repeat":
        values = [value] if isinstance(value, (str, Path)) else value
        return [x for v in values for x in (flag, str(v))]
    return [flag, str(value)]
