"""Helpers of the terminus2 tests: scripted replies, a fixture task, one full attempt driven end to end."""

from __future__ import annotations

import asyncio
import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agentcompass._config.registry import build
from agentcompass.benchmarks.demo import DemoBenchmark, DemoConfig
from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Grade, Task
from agentcompass.testing.scripted_server import ScriptedModelServer

TASKS_DIR = Path(__file__).resolve().parent / "tasks"


def harbor_dir() -> str:
    """Harbor 0.26.0's ``harbor/agents/terminus_2`` in the reference venv (``scripts/ensure_reference.sh harbor``).
    Missing: a failure under CI=true, else a skip."""
    from agentcompass.testing.reference import reference_dir, reference_python

    if reference_python("harbor") is not None:
        found = sorted((reference_dir() / "harbor").glob("lib/python3*/site-packages/harbor/agents/terminus_2"))
        if found:
            return str(found[0])
    message = "the harbor reference venv is missing: run scripts/ensure_reference.sh harbor"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def reply(
    *commands: str | tuple[str, float],
    task_complete: bool | str | None = None,
    analysis: str = "looking",
    plan: str = "type commands",
) -> str:
    """A well-formed Terminus-2 JSON reply with the given keystrokes (``(keys, duration)`` or keys)."""
    cmds = [
        {"keystrokes": c, "duration": 0.4} if isinstance(c, str) else {"keystrokes": c[0], "duration": c[1]}
        for c in commands
    ]
    data: dict[str, Any] = {"analysis": analysis, "plan": plan, "commands": cmds}
    if task_complete is not None:
        data["task_complete"] = task_complete
    return json.dumps(data)


def user_text(request: dict[str, Any], index: int = -1) -> str:
    """Content of a message of a recorded chat request (the last one by default)."""
    return request["body"]["messages"][index]["content"]


@dataclass
class Outcome:
    result: AgentResult | None
    error: BaseException | None
    requests: list[dict[str, Any]]
    trajectory: dict[str, Any]
    grade: Grade | None
    files: dict[str, bytes | None] = field(default_factory=dict)
    attempt_dir: Path | None = None


def build_model(base_url: str, data_dir: Path, **fields: Any) -> Any:
    cfg = {
        "_target_": "agentcompass.models.client.Model",
        "id": "m",
        "base_url": base_url,
        "api_key": "sk-test",
        "api_protocol": "openai-chat",
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        **fields,
    }
    return build("model", cfg, ComponentContext(data_dir=data_dir))


def load_task(task_id: str) -> tuple[Any, Task]:
    """A Terminal-Bench-format benchmark and one of its tasks: the demo tasks or tests/.../tasks/."""
    if (TASKS_DIR / task_id).is_dir():
        bench = TerminalBenchBenchmark(TerminalBenchConfig(dataset_path=str(TASKS_DIR), workdir_files="files"))
    else:
        bench = DemoBenchmark(DemoConfig(sample_ids=[task_id]))
    tasks = [t for t in bench.load() if t.id == task_id]
    assert tasks, f"fixture task {task_id} not found"
    return bench, tasks[0]


async def drive(
    provider: Any,
    replies: Any,
    tmp: Path,
    *,
    harness: dict[str, Any] | None = None,
    model: dict[str, Any] | None = None,
    server: dict[str, Any] | None = None,
    task_id: str = "greeting",
    read: tuple[str, ...] = (),
    grade: bool = True,
    timeout: float | None = None,
    auto_install: bool = False,
    labels: dict[str, str] | None = None,
) -> Outcome:
    """Open an environment for ``task_id``, run terminus2 against a scripted server, read files, grade."""
    bench, task = load_task(task_id)
    attempt_dir = tmp / "attempt-1"
    with ScriptedModelServer(replies=replies, **(server or {})) as srv:
        client = build_model(srv.base_url, tmp, **(model or {}))
        h = build(
            "harness",
            {
                "_target_": "agentcompass.harnesses.terminus2.Terminus2Harness",
                "id": "terminus2",
                "templates_dir": harbor_dir(),
                "record_terminal": False,
                **(harness or {}),
            },
            ComponentContext(data_dir=tmp),
        )
        ctx = AttemptContext(
            task=task, attempt=1, attempt_dir=attempt_dir, benchmark=bench, auto_install_dependencies=auto_install
        )
        spec = bench.env_spec(task)
        spec.labels.update(labels or {})
        env = await provider.open(spec)
        result = error = graded = None
        files: dict[str, bytes | None] = {}
        try:
            await bench.setup(task, env, ctx)
            try:
                result = await asyncio.wait_for(h.run(task, env, client, ctx), timeout)
            except BaseException as exc:
                error = exc
            for p in read:
                try:
                    files[p] = await env.read_file(p)
                except (FileNotFoundError, OSError):
                    files[p] = None
            if grade:
                graded = await bench.grade(task, env, result, ctx)
        finally:
            await env.close()
            await client.aclose()
        requests = list(srv.requests)
    path = attempt_dir / "trajectory.json"
    trajectory = json.loads(path.read_text()) if path.exists() else {}
    return Outcome(result, error, requests, trajectory, graded, files, attempt_dir)


REFUSED = {"status": 400, "error": "bad request: refused by the scripted server", "code": "invalid_request"}
OVERFLOW = {
    "status": 400,
    "error": "This model's maximum context length is 100 tokens; your request has more",
    "code": "context_length_exceeded",
}


@functools.lru_cache(maxsize=1)
def harbor_prompts() -> Any:
    """Harbor's texts as the harness reads them (tests look for them instead of quoting them)."""
    from agentcompass.harnesses.terminus2.harbor_source import load_source
    from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts

    return HarborPrompts(load_source(harbor_dir(), None, False))


def lead(name: str) -> str:
    """The literal text a Harbor template starts with (a marker for requests built from it)."""
    first = harbor_prompts()[name].parts[0]
    assert isinstance(first, str) and len(first) > 10, name
    return first.strip()


def tail(name: str) -> str:
    """The literal text a Harbor template ends with."""
    last = harbor_prompts()[name].parts[-1]
    assert isinstance(last, str) and len(last) > 10, name
    return last.strip()


class Dispatcher:
    """A reply source for the scripted server: summarization calls (recognised by their prompts) get the
    configured answers, every other call gets the next item of ``main``. ``kinds`` records the sequence."""

    def __init__(
        self,
        main: list[Any],
        *,
        summary: Any = "SUMMARY-TEXT",
        questions: Any = "1. QUESTIONS-TEXT?",
        answers: Any = "ANSWERS-TEXT",
        short: Any = "SHORT-SUMMARY-TEXT",
    ) -> None:
        self.main = list(main)
        self.special = {"summary": summary, "questions": questions, "answers": answers, "short": short}
        self.kinds: list[str] = []

    @staticmethod
    def kind(text: str) -> str:
        for kind, template in (
            ("summary", "summary"),
            ("questions", "questions"),
            ("answers", "answers"),
            ("short", "short_summary"),
        ):
            if text.startswith(lead(template)):
                return kind
        return "main"

    def __call__(self, request: dict[str, Any]) -> Any:
        kind = self.kind(request["body"]["messages"][-1]["content"])
        self.kinds.append(kind)
        if kind != "main":
            return self.special[kind]
        return (
            self.main.pop(0)
            if self.main
            else {"status": 500, "error": "script exhausted", "headers": {"x-should-retry": "false"}}
        )
