"""The optional LLM review of the integrity scan (docs/integrity.md): the flagged attempts of a run and a seeded
sample of its clean resolved ones are shown to the ``judge`` model role with a rubric; each answer (verdict and
reason, or the error) is written into the attempt's ``integrity.review``, its row's ``integrity.review`` and the
summary's ``metrics.integrity_review`` (counts, usage and cost).

Every call goes through the model layer as a fork of the judge's client for that attempt: retries, redaction and
the cache apply, and it is recorded in the attempt's ``model_calls.jsonl`` with ``"role": "judge"``.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentcompass._config import scrub
from agentcompass._integrity import RUBRIC, parse_review_answer, review_messages
from agentcompass.errors import ConfigError, one_line
from agentcompass.interfaces import ModelClient, Usage

from ..metrics import passed, record_of
from ..record import ResultRow, Review, ReviewReport, RunResult, RunStore, row_sample
from .roles import RoleAttempt

ROLE = "judge"
Params = dict[str, Any]  # settings as given (a config mapping), checked by ReviewParams


class ReviewParams(BaseModel):
    """Settings of the integrity review (``execution.integrity_review_params``; ``agentcompass scan --review``)."""

    model_config = ConfigDict(extra="forbid")

    rubric: str | None = Field(None, description="a rubric file replacing the built-in rubric")
    sample: int = Field(5, ge=0, description="clean resolved attempts reviewed besides every flagged one")
    seed: int = Field(0, description="seed of that sample")
    concurrency: int = Field(4, ge=1, description="judge calls in flight at once")
    max_chars: int = Field(12000, ge=1000, description="evidence text sent per reviewed attempt")


def load_rubric(path: str | Path | None) -> str:
    """The built-in rubric, or the text of the user's rubric file (ConfigError naming the file)."""
    if not path:
        return RUBRIC
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"integrity review rubric {str(path)!r}: cannot be read ({exc.__class__.__name__})") from None
    if not text.strip():
        raise ConfigError(f"integrity review rubric {str(path)!r}: the file is empty; give the rubric's text")
    return text


def parse_params(raw: Params | None, where: str = "integrity_review_params") -> ReviewParams:
    from pydantic import ValidationError

    from agentcompass._config import validation_error

    if raw is not None and not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a mapping (CLI: a JSON object), got {type(raw).__name__}")
    try:
        return ReviewParams.model_validate(raw or {})
    except ValidationError as exc:
        raise validation_error(exc, where, sorted(ReviewParams.model_fields)) from None


def _succeeded(row: ResultRow) -> bool:
    """Resolved, or passed for benchmarks without a resolved notion (as ``resolved_rate_clean`` counts)."""
    resolved = row.get("resolved")
    return bool(resolved) if resolved is not None else passed({"status": "error", "reward": None, **row})


def select(rows: list[ResultRow], sample: int, seed: int) -> list[ResultRow]:
    """Every flagged row (suspect or hack), then ``sample`` clean resolved rows drawn with ``seed``."""
    verdict = [(r, (r.get("integrity") or {}).get("verdict")) for r in rows]
    flagged = [r for r, v in verdict if v in ("suspect", "hack")]
    clean = sorted((r for r, v in verdict if v == "clean" and _succeeded(r)), key=_key)
    drawn = random.Random(seed).sample(clean, min(sample, len(clean)))
    return sorted(flagged, key=_key) + sorted(drawn, key=_key)


def _key(row: ResultRow) -> tuple[str, int]:
    return str(row["task_id"]), row_sample(row)


async def _review_one(
    store: RunStore, row: ResultRow, client: ModelClient, rubric: str, params: ReviewParams, keep: bool
) -> tuple[Review | None, Usage]:
    """One attempt's review, written into its result.json; None when its record cannot be read. With ``keep``,
    an attempt reviewed before (a run continued by --reuse) keeps its review and is not asked again."""
    record = record_of(store, row)
    result = record.read_result() if record is not None else None
    if record is None or result is None or not result.get("integrity"):
        return None, Usage()
    earlier = result["integrity"].get("review")
    if keep and isinstance(earlier, dict):
        return earlier, Usage.from_dict(earlier.get("usage"))
    attempt = RoleAttempt(SimpleNamespace(id=row["task_id"]), row_sample(row), record.dir, ROLE)
    fork = client.fork(attempt)  # type: ignore[arg-type]  # what fork reads of an attempt, as roles.py forks
    review = Review(model=client.model_id)
    cap = params.max_chars
    try:
        sent = [{**m, "content": scrub(m["content"])} for m in review_messages(rubric, record.dir, result, cap)]
        reply = await fork.complete(sent)
        review["verdict"], review["reason"] = parse_review_answer(reply.text)
    except Exception as exc:  # a failed or unusable answer is this attempt's error, never the run's
        review["verdict"], review["error"] = None, one_line(exc)
    review["usage"] = fork.usage.to_dict()
    record.write_result({**result, "integrity": {**result["integrity"], "review": review}})
    row["integrity"] = {**(row.get("integrity") or {}), "review": review["verdict"] or "error"}
    return review, fork.usage


async def review_rows(
    store: RunStore, rows: list[ResultRow], client: ModelClient, params: ReviewParams, *, keep: bool = False
) -> ReviewReport:
    """Review the selected rows (:func:`select`) with ``client`` (``keep``: see :func:`_review_one`); returns
    ``metrics.integrity_review``:
    ``{model, rubric, n_selected, n_reviewed, verdicts, n_errors, usage, cost_usd}``."""
    rubric = load_rubric(params.rubric)
    chosen = select(rows, params.sample, params.seed)
    sem = asyncio.Semaphore(params.concurrency)

    async def one(row: ResultRow) -> tuple[Review | None, Usage]:
        async with sem:
            return await _review_one(store, row, client, rubric, params, keep)

    done = await asyncio.gather(*(one(r) for r in chosen))
    total, verdicts = Usage(), Counter[str]()
    for review, spent in done:
        total.add(spent)
        if review is not None:
            verdicts[review["verdict"] or "error"] += 1
    usage = total.to_dict()
    return ReviewReport(
        model=client.model_id,
        rubric=params.rubric or "built-in",
        n_selected=len(chosen),
        n_reviewed=sum(v for k, v in verdicts.items() if k != "error"),
        verdicts={k: verdicts.get(k, 0) for k in ("clean", "suspect", "hack")},
        n_errors=verdicts.get("error", 0),
        usage=usage,
        cost_usd=usage["cost_usd"],
    )


def record_review(store: RunStore, rows: list[ResultRow], report: ReviewReport) -> None:
    """The rows' review verdicts into results.jsonl, the report and the task rows into summary.json."""
    from ..metrics import build_summary

    store.rewrite_results(rows)
    summary = store.read_summary()
    if summary is not None:
        summary["metrics"] = {**(summary.get("metrics") or {}), "integrity_review": report}
        summary["summary"] = {**build_summary(rows), "not_run": (summary.get("summary") or {}).get("not_run", [])}
        store.write_summary(summary)


def check_review(execution: Any, main: Params, defaults: Any, given: Params) -> None:
    """ConfigError before a run with ``execution.integrity_review`` whose settings, rubric or judge are wrong."""
    from .roles import role_config

    if not execution.integrity_scan:
        raise ConfigError("integrity_review reviews what the integrity scan flags: drop integrity_scan=false")
    params = parse_params(execution.integrity_review_params)
    load_rubric(params.rubric)
    role_config(ROLE, main, (defaults or {}).get(ROLE), given.get(ROLE))


async def review_finished(
    store: RunStore, rows: list[ResultRow], roles: Any, raw: Params, result: RunResult
) -> RunResult:
    """The review at a run's finalisation (``execution.integrity_review``), through the request's judge role;
    returns the run's result with ``metrics.integrity_review``. A judge that cannot be built is recorded as the
    review's ``error`` (the run's results stand)."""
    try:
        report = await review_rows(store, rows, roles.client(ROLE), parse_params(raw), keep=True)
    except Exception as exc:
        report = ReviewReport(error=one_line(exc))
    record_review(store, rows, report)
    summary = store.read_summary() or result
    return {**result, "metrics": {**result["metrics"], "integrity_review": report}, "summary": summary["summary"]}


async def review_run(run_dir: str | Path, client: ModelClient, params: Params | None = None) -> ReviewReport:
    """Review a scanned run directory with the judge's ``client`` (``agentcompass scan RUN_DIR --review``; it is
    closed here); returns the review report."""
    parsed = parse_params(params)
    store = RunStore.at(run_dir)
    rows = list(store.finished_rows().values())
    try:
        report = await review_rows(store, rows, client, parsed)
    finally:
        await client.aclose()
    record_review(store, rows, report)
    return report
