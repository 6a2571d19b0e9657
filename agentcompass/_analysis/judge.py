"""The optional judge: a model that labels each failed attempt with ONE category of a fixed taxonomy.

The judge sees the attempt's recorded facts (status, reward, error, limits, turns, format errors), the end of
its traceback, verifier log and agent log/trajectory, and the start of its submission, within
``judge_max_chars``. It must answer with ``{"category": ..., "reason": ...}``; an unknown category becomes
``other`` (the reason says so); a failed call leaves the attempt unlabelled with ``judge_error`` set.
Every call goes through the model layer, so its tokens and cost are counted (``judge.usage``).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from agentcompass._orchestrator.record import ERROR_FILE, VERIFIER_LOG
from agentcompass.errors import ConfigError, one_line

from .shapes import AttemptFile, JudgeLabel

TAXONOMY: dict[str, str] = {
    "infra_failure": "the sandbox or infrastructure failed (container, image, disk, network, crash of the "
    "framework), not the agent",
    "model_api_failure": "the model endpoint failed: HTTP errors, rate limits, context length exceeded, "
    "empty or cut-off replies",
    "format_errors": "the agent's replies did not follow the required action/reply format, so its actions "
    "could not be parsed or executed",
    "gave_up_or_no_submission": "the agent stopped, declared it was done, or crashed without producing a "
    "submission or the required result",
    "wrong_solution": "the agent produced a submission or result, but it is incorrect or incomplete",
    "timeout_or_limit": "the agent ran out of wall time, turns, steps or cost budget before finishing",
    "verifier_problem": "the verifier or its tests could not run or gave no valid reward, independently of "
    "the agent's work",
    "other": "none of the above fits",
}

_SYSTEM = (
    "You analyse failed attempts of an AI agent on a benchmark task. Pick exactly ONE category for the "
    "main cause of the failure and give a one-line reason. Categories:\n"
    + "\n".join(f"- {k}: {v}" for k, v in TAXONOMY.items())
    + '\nAnswer with one JSON object and nothing else: {"category": "<category>", "reason": "<one line>"}'
)
_FILES = (
    ("traceback", ERROR_FILE, 0.2),
    ("verifier log", VERIFIER_LOG, 0.25),
    ("agent log", "agent.log", 0.25),
    ("trajectory", "trajectory.json", 0.3),
)  # the last two: harnesses


def build_judge(spec: dict[str, Any] | str, logger: Any = None) -> Any:
    """A ``Model`` from a conf/model id or model name, with the mapping's fields merged over it."""
    from agentcompass._config import build, component_config, deep_merge, default_data_dir, list_ids, register_secret
    from agentcompass.interfaces import ComponentContext

    extra = {"id": spec} if isinstance(spec, str) else dict(spec)
    name = str(extra["id"])
    base_id = name if name in list_ids("model") else "generic"
    base = component_config("model", base_id)
    if base_id != "generic":
        extra.pop("id")
    cfg = deep_merge(base, extra)  # type: ignore[arg-type]
    if cfg.get("_target_") is None:
        raise ConfigError(f"analysis_params.model={name!r} is not a model; name a model id or model name")
    register_secret(cfg.get("api_key"))
    ctx = ComponentContext(data_dir=default_data_dir(), **({"logger": logger} if logger is not None else {}))
    return build("model", cfg, ctx)


def _tail(path: Path, n: int) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data[-n:].decode("utf-8", errors="replace")
    return ("[...]" + text) if len(data) > n else text


def evidence(attempt: AttemptFile, budget: int) -> str:
    """The user message for one attempt: recorded facts plus the ends of its logs, within ``budget`` chars."""
    from agentcompass._config import scrub

    agent = attempt.get("agent") or {}
    facts = {
        k: attempt.get(k)
        for k in ("task_id", "attempt", "status", "reward", "resolved", "error", "error_class", "duration_s")
    }
    facts.update({k: agent.get(k) for k in ("exit_status", "limit_hit", "n_turns", "n_format_errors")})
    grade = attempt.get("grade") or {}
    if grade.get("error"):
        facts["verifier_error"] = grade["error"]
    parts = ["Recorded facts:\n" + json.dumps(facts, indent=1, default=str)]
    submission = agent.get("submission")
    if submission:
        parts.append("Submission (start):\n" + str(submission)[: budget // 6])
    folder = Path(attempt.get("attempt_dir") or ".")
    for label, name, share in _FILES:
        text = _tail(folder / name, int(budget * share))
        if text.strip():
            parts.append(f"{label} (end):\n{text}")
    return scrub("\n\n".join(parts))[:budget]


def parse_reply(text: str) -> tuple[str, str]:
    """(category, reason) from the judge's reply; an unusable reply gives ``other`` and says why."""
    data: Any = None
    match = re.search(r"\{.*\}", text or "", re.S)
    if match:
        try:
            data = json.loads(match.group(0))
        except ValueError:
            data = None
    if isinstance(data, dict):
        category = str(data.get("category", "")).strip().lower()
        reason = " ".join(str(data.get("reason", "")).split())[:300]
    else:
        found = [k for k in TAXONOMY if k in (text or "")]
        category, reason = (found[0] if found else ""), " ".join((text or "").split())[:300]
    if category not in TAXONOMY:
        return "other", f"(judge answered an unknown category {category!r}) {reason}".strip()
    return category, reason or "(no reason given)"


async def judge_attempts(model: Any, attempts: list[AttemptFile], *, concurrency: int, budget: int) -> list[JudgeLabel]:
    """One label per attempt, in input order."""
    sem = asyncio.Semaphore(concurrency)

    async def one(att: AttemptFile) -> JudgeLabel:
        label: JudgeLabel = {
            "task_id": att.get("task_id"),
            "attempt": att.get("attempt"),
            "outcome": att.get("outcome"),
        }
        messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": evidence(att, budget)}]
        async with sem:
            try:
                reply = await model.complete(messages)
            except Exception as exc:  # a failed judge call never fails the analysis
                return {**label, "category": None, "reason": None, "judge_error": one_line(exc)}
        category, reason = parse_reply(reply.text)
        return {**label, "category": category, "reason": reason}

    return list(await asyncio.gather(*(one(a) for a in attempts)))
