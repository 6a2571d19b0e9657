"""BFCL v4 multi-turn (``bfcl_multi_turn``): the categories ``base``, ``miss_func``, ``miss_param`` and
``long_context`` of the installed ``bfcl-eval`` package, run and graded by the package's own code.

Each task is one conversation (:class:`~.conversation.BfclConversation`) between the harness's agent and the task's
scripted user turns over the package's stateful API classes; grading is the package's multi-turn checker on the
transcript (:mod:`.grading`). ``finalize`` writes ``bfcl_scores.json``: the accuracy of each category and the
multi-turn overall accuracy as BFCL's leaderboard computes them (:func:`scores`). The environment the request opens
is not used (any provider works; ``memory`` or ``local`` is cheapest).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentcompass.conversation import Transcript
from agentcompass.errors import VerifierError
from agentcompass.interfaces import (
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    EnvSpec,
    Grade,
    Solution,
    Task,
)
from agentcompass.kit import data_dir, select_ids

from . import _package
from .shapes import BfclEntry, BfclScores, CategoryScore, ResultRow

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")  # the leaderboard's multi-turn columns
REFUSED = {
    "web_search": "needs the internet (live search through SerpAPI with a key)",
    "memory": "needs downloaded models (sentence-transformers for vector retrieval) and prerequisite conversations",
    "composite": "has no data in bfcl-eval (BFCL has not released it)",
}
SCORES_FILE = "bfcl_scores.json"


class BfclMultiTurnConfig(BaseModel):
    """Configuration of BFCL multi-turn."""

    model_config = ConfigDict(extra="forbid")

    categories: list[str] = Field(list(CATEGORIES), description="Multi-turn categories to run, in this order.")
    sample_ids: list[str] | None = Field(None, description="Task ids (multi_turn_base_0...) to run, in this order.")
    limit: int | None = Field(None, ge=0, description="Run at most this many tasks (after sample_ids).")
    agent_timeout_s: float | None = Field(None, gt=0, description="Wall-clock bound of one conversation.")

    @field_validator("categories")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        for name in value:
            short = name.removeprefix("multi_turn_")
            refused = next((why for key, why in REFUSED.items() if short.startswith(key)), None)
            if refused:
                raise ValueError(f"category {name!r} is not run by bfcl_multi_turn: it {refused}")
            if short not in CATEGORIES:
                raise ValueError(f"unknown category {name!r}; valid: {', '.join(CATEGORIES)}")
        if not value:
            raise ValueError(f"no category; valid: {', '.join(CATEGORIES)}")
        return [n.removeprefix("multi_turn_") for n in value]


class BfclMultiTurnBenchmark:
    """BFCL v4 multi-turn, from the installed ``bfcl-eval``."""

    id = "bfcl_multi_turn"
    config_class = BfclMultiTurnConfig
    resumable_from_submission: ClassVar[bool] = True  # grading reads only the transcript

    def __init__(self, config: BfclMultiTurnConfig, ctx: ComponentContext | None = None) -> None:
        self.config = config
        self._data_root = data_dir(ctx) / "bfcl"

    def load(self) -> list[Task]:
        _package.bfcl(self._data_root)
        tasks: list[Task] = []
        for category in self.config.categories:
            entries, answers = _category(category)
            tasks += [self._task(category, e, answers[e["id"]]) for e in entries]
        return self._select(tasks)

    def _select(self, tasks: list[Task]) -> list[Task]:
        c = self.config
        by_id = {t.id: t for t in tasks}
        return [by_id[i] for i in select_ids(list(by_id), c.sample_ids, c.limit, f"categories {c.categories}")]

    def _task(self, category: str, entry: BfclEntry, ground_truth: list[list[str]]) -> Task:
        first = entry["question"][0] if entry["question"] else []
        return Task(
            id=str(entry["id"]),
            instruction=str(first[0]["content"]) if first else "",
            workdir="/",
            agent_timeout_s=self.config.agent_timeout_s,
            metadata={"category": category, "turns": len(ground_truth), "bfcl_eval": _package.installed_version()},
            data={"entry": entry, "ground_truth": ground_truth},
        )

    # ------------------------------------------------------------------ attempt
    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, workdir="/")

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        return None

    async def conversation(self, task: Task, env: Environment | None, ctx: AttemptContext) -> Any:
        from .conversation import BfclConversation

        return BfclConversation(task.data["entry"])

    async def grade(self, task: Task, env: Environment | None, agent: AgentResult, ctx: AttemptContext) -> Grade:
        from .grading import check, model_result

        transcript = agent.transcript
        if isinstance(transcript, dict):
            transcript = Transcript.from_dict(transcript)
        if not isinstance(transcript, Transcript):
            raise VerifierError(f"task {task.id}: the agent's result has no conversation transcript to grade")
        verdict = check(task.data["entry"], task.data["ground_truth"], model_result(transcript))
        passed = sum(1 for v in verdict.turns if v)  # the turns before the first failing one (ours, not BFCL's)
        return Grade(
            reward=1.0 if verdict.valid else 0.0,
            rewards={"turns_passed": passed / max(len(verdict.turns), 1)},
            resolved=verdict.valid,
            details={"category": task.metadata.get("category"), "checker": verdict.to_dict()},
        )

    def reference_solution(self, task: Task) -> Solution:
        from .oracle import reference_messages

        messages = reference_messages(task.data["entry"], task.data["ground_truth"])
        return Solution(messages=messages, info={"source": "ground_truth"})

    def finalize(self, run_dir: Path, rows: list[ResultRow]) -> dict[str, str]:
        path = Path(run_dir) / SCORES_FILE
        path.write_text(json.dumps(scores(rows), indent=2) + "\n", encoding="utf-8")
        return {"bfcl_scores": str(path)}


@functools.cache
def _category(category: str) -> tuple[list[BfclEntry], dict[str, list[list[str]]]]:
    """The package's entries of a category (``load_dataset_entry``: function docs and held-out functions filled in)
    and their ground truth by id; read once per process (nothing changes them: a conversation copies its entry)."""
    utils = _package.module("utils")
    entries = utils.load_dataset_entry(f"multi_turn_{category}")
    answers = {a["id"]: a["ground_truth"] for a in utils.load_ground_truth_entry(f"multi_turn_{category}")}
    return entries, answers


def category_of(task_id: str) -> str:
    """``multi_turn_miss_func_12`` -> ``miss_func``."""
    return task_id.rsplit("_", 1)[0].removeprefix("multi_turn_")


def scores(rows: list[ResultRow]) -> BfclScores:
    """Accuracy per category (tasks passed / tasks, every sample a task; an attempt that failed counts as not
    passed) and ``overall``: the leaderboard's multi-turn overall accuracy, the unweighted mean of the four
    categories' accuracies, a category not run counting 0 as the leaderboard counts it (``complete`` says whether
    all four ran); ``overall_of_run``: the same mean over the categories run."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        tally = counts.setdefault(category_of(str(row["task_id"])), [0, 0])
        tally[0] += 1 if row.get("resolved") else 0
        tally[1] += 1
    per: dict[str, CategoryScore] = {
        c: {"accuracy": ok / total, "correct_count": ok, "total_count": total}
        for c, (ok, total) in counts.items()
        if total
    }
    accuracies = [per[c]["accuracy"] for c in CATEGORIES if c in per]
    return {
        "categories": per,
        "overall": sum(accuracies) / len(CATEGORIES),
        "complete": all(c in per for c in CATEGORIES),
        "overall_of_run": sum(accuracies) / len(accuracies) if accuracies else 0.0,
        "bfcl_eval": _package.installed_version(),
    }
