"""One request: build the components, pick the run directory, run every pending task, write the record."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcompass._config import (
    GROUPS,
    Components,
    ResolvedRequest,
    build_components,
    data_dir,
    register_config_secrets,
    register_secret,
)
from agentcompass._config import redact_config as redact
from agentcompass._integrity import summary_of
from agentcompass.conversation import CONVERSATION, CONVERSES, MODEL_ROLES
from agentcompass.errors import AgentCompassError, ConfigError, StorageError, one_line
from agentcompass.interfaces import (
    HARNESS_DESCRIBE,
    MAX_CONCURRENT,
    PRICE_INFO,
    REQUIRES_MODEL,
    RESUMABLE_FROM_SUBMISSION,
    SET_ATTEMPT_LIMITS,
    SET_CONCURRENCY_LIMIT,
    SUMMARY_FIGURES,
    AttemptStatus,
    ComponentContext,
    Harness,
    RunStatus,
    Task,
)

from ..metrics import (
    ErrorCounted,
    ErrorCounts,
    build_summary,
    compute_metrics,
    not_run_reason,
    not_run_rows,
    scan_rows,
    task_row,
)
from ..record import (
    LOGGER,
    SCHEMA_VERSION,
    BudgetRecord,
    Fingerprint,
    MetadataExtras,
    NotRunTask,
    ResultRow,
    RunLock,
    RunMetadata,
    RunMetrics,
    RunRecord,
    RunResult,
    RunStore,
    Sessions,
    ThrottledRecord,
    current_request,
    find_reusable,
    new_run_id,
    record_write_error,
    safe_name,
    upgrade_row,
)
from .attempt import AttemptOutcome, load_checkpoint, run_attempt
from .budget import Budget, cancel_on_budget, prior_spending, request_budget
from .budget import check_config as check_budget_config
from .hooks import Hooks
from .pool import Pool
from .progress import AttemptFinished, Progress, RetryScheduled
from .retry import should_retry
from .review import check_review, review_finished
from .roles import ModelRoles
from .runtime import RequestRuntime
from .services import Services

# model keys that change how calls are answered, not what the request is: a reused run may change them
RUN_ONLY_MODEL_KEYS = ("cache", "cache_expire_after", "cache_max_mb", "replay")


def _version() -> str:
    from agentcompass import __version__  # the one source (pyproject.toml reads it too)

    return __version__


def _harness_info(harness: Harness | None) -> MetadataExtras:
    """``{"harness_info": ...}`` when the harness describes what it is made of (e.g. the prompts it uses)."""
    describe = HARNESS_DESCRIBE.of(harness)
    return {"harness_info": redact(describe())} if callable(describe) else {}


def _price_info(model: Any) -> MetadataExtras:
    """``{"prices": {model id: source}}``: where the price of the request's model came from."""
    info = PRICE_INFO.of(model)
    return {"prices": {str(model.model_id): info}} if info is not None else {}


def _diff(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ, as ``key: old -> new``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            out += _diff(old.get(key), new.get(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    return [] if old == new else [f"{prefix}: {old!r} -> {new!r}"]


class RequestRun:
    """Prepared once (components, tasks, run dir), executed once, finalized once."""

    def __init__(
        self,
        resolved: ResolvedRequest,
        name: str,
        pool: Pool,
        progress: Progress,
        hooks: Hooks | None = None,
        executor: Any = None,
        budgets: list[Budget] | None = None,
    ) -> None:
        self.resolved, self.pool, self.progress, self.executor = resolved, pool, progress, executor
        self.budgets = list(budgets or [])  # the orchestration's (launch); the request's own is added in prepare
        self.hooks = hooks or Hooks()
        self.cfg = resolved.config
        self.name = name or self.run_name
        self.components: Components | None = None  # built by build()
        self.n_tasks = 0
        self.rows: dict[tuple[str, int], ResultRow] = {}  # (task id, sample) -> its final row (via _keep)
        self.error_counts = ErrorCounts()  # of self.rows, for the running run.json
        self.write_error: AgentCompassError | None = None  # a queued write of the record failed (afinalize)
        self.unwritten: set[tuple[str, int]] = set()  # rows whose results.jsonl line was not written
        self.pending: list[tuple[Task, int, int, Any]] = []  # (task, sample, attempt number, checkpoint)
        self.sessions = Sessions()  # this one, and the earlier ones of a reused run
        self.started_at = self.sessions.started_at
        self.rt: RequestRuntime | None = None
        self.roles: ModelRoles | None = None
        self.store: RunStore | None = None
        self.logger = LOGGER.getChild("run")
        self.extra_paths: dict[str, str] = {}
        self.storage_error: StorageError | None = None  # the final record did not fit on the disk
        self.lock: RunLock | None = None  # held from the store's opening to aclose()
        self.progress_record = ThrottledRecord(self._running_record, self._write_record)
        self.services = Services(self.hooks.services, self.logger)

    # ------------------------------------------------------------------ preparation
    @property
    def run_name(self) -> str:
        c = self.resolved.choices
        model = safe_name(self.cfg.model.id or "none")
        return self.cfg.output.run_name or f"{c['benchmark']}__{c['harness']}__{model}"

    def prepare(self) -> None:
        """Build components, load tasks, open (and lock) the run directory and plan the attempts (blocking)."""
        recipes = self.hooks.recipe_runner(self.cfg.recipes, self.logger)  # host variables read now
        tasks = self.build()
        self.n_tasks = len(tasks)
        try:
            self._open_store(tasks)
        except BaseException:
            self.release()
            raise
        self.rt = RequestRuntime(
            self.name,
            self.store.run_id,
            self.cfg,
            self.components,
            self.store,
            self.pool,
            self.progress,
            self.logger,
            slot_providers=[self.components.environment.name],
            recipes=recipes,
            executor=self.executor,
            roles=self.roles,
            scan_benchmark=self._scan_benchmark(),
        )
        self._apply_limits()
        self._plan_budgets(tasks)
        self._plan(tasks)

    def _scan_benchmark(self) -> str | None:
        """The benchmark's name for the integrity scan of each attempt (None: ``execution.integrity_scan`` off)."""
        return str(self.resolved.choices["benchmark"]) if self.cfg.execution.integrity_scan else None

    def build(self) -> list[Task]:
        """Build the components and load the tasks; creates nothing on disk (used by dry runs too)."""
        data, runtime, ex = self.resolved.data, self.cfg.runtime, self.cfg.execution
        self.hooks.check(
            recipes=self.cfg.recipes, auto_install=runtime.auto_install_dependencies, analysis=ex.enable_analysis
        )
        register_secret(data["model"].get("api_key"))
        register_config_secrets(data)
        results_dir = Path(runtime.results_dir).expanduser()
        run_id = self._pick_run_id(results_dir)
        self.store = RunStore(results_dir, self.run_name, run_id)
        ctx = ComponentContext(
            data_dir=data_dir(runtime.data_dir),
            run_id=run_id,
            request=self.name,
            benchmark_id=self.resolved.choices["benchmark"],
            model_id=self.cfg.model.id or "none",
            harness_id=self.resolved.choices["harness"],
            environment_id=self.resolved.choices["environment"],
            auto_install_dependencies=runtime.auto_install_dependencies,
            logger=self.logger,
        )
        with self.hooks.dependency_scope(runtime.auto_install_dependencies):
            components = build_components(data, ctx)
            self._check_model(components)
            model = components.model
            for role in self.cfg.model_roles.values():
                register_secret(role.get("api_key") if isinstance(role, dict) else None)
            defaults = MODEL_ROLES.of(components.benchmark)
            self.roles = ModelRoles(data["model"], self.cfg.model_roles, defaults, ctx)
            if self.cfg.execution.integrity_review:  # its settings and its judge fail now, not after the run
                check_review(self.cfg.execution, data["model"], defaults, self.cfg.model_roles)
            check_budget_config(self.cfg.execution, model, PRICE_INFO.of(model), self.budgets)
            self.components = components
            return components.benchmark.load()

    def _pick_run_id(self, results_dir: Path) -> str:
        runtime, output = self.cfg.runtime, self.cfg.output
        if runtime.reuse:
            return find_reusable(results_dir, self.run_name, runtime.reuse_run_id or output.run_id)
        if runtime.reuse_run_id:
            raise ConfigError("reuse_run_id is set but reuse is false; pass reuse=True (CLI: --reuse RUN_ID)")
        return output.run_id or new_run_id()

    def _check_model(self, components: Components) -> None:
        if CONVERSATION.of(components.benchmark) is not None and not CONVERSES.of(components.harness):
            raise ConfigError(
                f"benchmark {self.resolved.choices['benchmark']!r} is a tool-use conversation; harness "
                f"{self.resolved.choices['harness']!r} cannot converse (harnesses that can: tool_agent, oracle, nop, "
                "claude_code, codex, opencode, qwen_code)"
            )
        if REQUIRES_MODEL.of(components.harness) and components.model is None:
            raise ConfigError(f"harness {self.resolved.choices['harness']!r} needs a model; got model 'none'")
        ex, model = self.cfg.execution, components.model
        limits = {"attempt_max_model_calls": ex.attempt_max_model_calls}
        limits["attempt_max_tokens_total"] = ex.attempt_max_tokens_total
        for key, value in limits.items():
            if value is not None and model is not None and SET_ATTEMPT_LIMITS.of(model) is None:
                raise ConfigError(
                    f"execution.{key}={value}: the model client {type(model).__name__} cannot enforce it "
                    "(no set_attempt_limits)"
                )

    def _plan_budgets(self, tasks: list[Task]) -> None:
        """The request's budget (what reused runs spent counts) and the orchestration's, for the attempts."""
        prior = prior_spending(self.store, [t.id for t in tasks]) if self.cfg.runtime.reuse else {}
        for shared in self.budgets:
            shared.add_prior(prior)
        self.budgets.insert(0, request_budget(self.cfg.execution, prior))
        self.rt.budgets = [b for b in self.budgets if b.active]

    def _fingerprint(self, tasks: list[Task]) -> Fingerprint:
        comps = {g: redact(self.resolved.data[g]) for g in GROUPS}
        comps["model"] = {k: v for k, v in comps["model"].items() if k not in RUN_ONLY_MODEL_KEYS}
        return {"components": comps, "task_ids": sorted(t.id for t in tasks)}

    def _open_store(self, tasks: list[Task]) -> None:
        store, fp = self.store, self._fingerprint(tasks)
        if self.cfg.runtime.reuse:
            self.lock = store.lock()
            swept = store.sweep_temp_files()
            if swept:
                self.logger.info("removed %d temporary files left by a killed run", swept)
            old = store.read_fingerprint()
            if old.get("task_ids") != fp["task_ids"]:
                raise ConfigError(
                    f"reuse of run {store.run_id!r}: the task set differs "
                    f"({len(old.get('task_ids', []))} tasks before, {len(fp['task_ids'])} now)"
                )
            changed = _diff(old.get("components", {}), fp["components"])
            if changed:
                raise ConfigError(
                    f"reuse of run {store.run_id!r}: components differ from the reused run: " + "; ".join(changed[:5])
                )
            store.create(exist_ok=True)
            self.sessions.continue_from(store.read_run_record(), store.read_summary())
        else:
            store.create()
            self.lock = store.lock()
            store.write_fingerprint(fp)
        store.write_config(redact(self.resolved.data))
        self._write_run_record(RunStatus.RUNNING)

    def _apply_limits(self) -> None:
        rt, limits = self.rt, self.cfg.runtime.provider_limits
        self.pool.limit_provider(rt.provider.name, MAX_CONCURRENT.of(rt.provider))
        model_provider = rt.model.provider if rt.model is not None else None
        set_limit = SET_CONCURRENCY_LIMIT.of(rt.model)
        if model_provider in limits and set_limit is not None:
            set_limit(limits[model_provider])
        for name in limits:
            if name != rt.provider.name and name != model_provider:
                self.logger.warning(
                    "provider_limits names %r, which is neither the environment provider %r nor the model provider %r",
                    name,
                    rt.provider.name,
                    model_provider,
                )

    def _plan(self, tasks: list[Task]) -> None:
        """Every (task, sample) still to run, samples outermost (a run cut short has whole earlier samples)."""
        store, resume, k = self.store, self.cfg.runtime.reuse, self.cfg.execution.n_attempts
        finished = store.finished_rows() if resume else {}
        can_resume = self.cfg.runtime.checkpoint_resume and RESUMABLE_FROM_SUBMISSION.of(self.rt.benchmark)
        for sample in range(1, k + 1):
            for task in tasks:
                row = finished.get((task.id, sample))
                if row is not None and row["status"] == AttemptStatus.COMPLETED:
                    self._keep((task.id, sample), upgrade_row(row))
                    continue
                attempts = store.attempts_of(task.id, sample) if resume else []
                last = store.attempt(task.id, attempts[-1], sample) if attempts else None
                checkpoint = load_checkpoint(last) if last is not None else None
                if checkpoint is not None and can_resume:
                    self.pending.append((task, sample, attempts[-1], checkpoint))
                else:
                    self.pending.append((task, sample, (attempts[-1] + 1) if attempts else 1, None))
        if resume:
            beyond = sorted({s for (_, s) in finished if s > k})
            if beyond:
                self.logger.warning(
                    "reuse of %s: samples %s of the earlier run are beyond n_attempts=%d and left out of the results",
                    store.run_id,
                    beyond,
                    k,
                )
            self.logger.info("reuse of %s: %d samples kept, %d to run", store.run_id, len(self.rows), len(self.pending))
        self.sessions.kept = len(self.rows)

    # ------------------------------------------------------------------ execution
    async def start(self) -> None:
        """Start the request-scoped services (after :meth:`prepare`, before the first attempt)."""
        await self.services.start(self.rt)

    async def execute(self) -> None:
        current_request.set(self.name)
        if self.cfg.runtime.reuse:
            cleanup = (
                self.executor.cleanup(self.rt)
                if self.executor is not None
                else self.rt.provider.cleanup(self.store.run_id)
            )
            removed = await cleanup
            if removed:
                self.logger.info("removed %d environments left behind by run %s", removed, self.store.run_id)
        jobs = self._feeders()
        watcher = None
        if self.rt.budgets and self.cfg.execution.budget_policy == "cancel":
            watcher = asyncio.ensure_future(cancel_on_budget(self.rt.budgets, jobs, self.logger))
        try:
            # not gather: a cancelled gather waits for every child to finish, so the grace below would never
            # bound how long a slow-to-cancel attempt holds up the end of the run
            if jobs:
                await asyncio.wait(jobs, return_when=asyncio.FIRST_EXCEPTION)
            for job in jobs:
                if job.done() and not job.cancelled() and job.exception() is not None:
                    raise job.exception()  # type: ignore[misc]
        except BaseException:
            for job in jobs:
                if not job.done():
                    job.cancel()
            if jobs:
                await asyncio.wait(jobs, timeout=self.cfg.runtime.cleanup_grace_seconds or None)
            for job in jobs:  # a cancelled attempt may end in an error of its own (a full disk): it is seen here
                if job.done() and not job.cancelled() and job.exception() is not None:
                    self.logger.debug("%s: after the stop: %s", self.name, one_line(job.exception()))
            raise
        finally:
            if watcher is not None:
                watcher.cancel()

    def _feeders(self) -> list[asyncio.Future[None]]:
        """The request's samples, in order, at most the pool's size of them under way at once (waiting for a slot
        or running): each feeder takes the next pending sample when its last one is done. A task per pending
        sample would hold a whole attempt's state from the start, for every sample (about 8 KB each: 0.9 GB and
        long garbage-collection pauses at 100k tasks)."""
        pending, due = iter(self.pending), time.monotonic()

        async def feed() -> None:
            for task, sample, n, checkpoint in pending:
                try:
                    await self._run_sample(task, sample, n, checkpoint, due)
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is None or current.cancelling():  # this feeder is cancelled: it stops
                        raise
                    # the sample was refused at its slot (the request is stopping, a budget is spent): so are the
                    # next ones, each counted by the budget as one that never started

        width = min(self.pool.size, len(self.pending))
        return [asyncio.ensure_future(feed()) for _ in range(width)]

    async def _run_sample(self, task: Task, sample: int, n: int, checkpoint: Any, due: float) -> None:
        """One sample of a task, due since ``due``: attempt ``n``, then its retries (each a new attempt of the same
        sample, due when it is decided)."""
        rt, ex = self.rt, self.cfg.execution
        attempts: list[AttemptOutcome] = []
        while True:
            out = await run_attempt(rt, task, n, checkpoint, sample, due)
            due = time.monotonic()
            attempts.append(out)
            checkpoint = None
            retry = (
                out.status == AttemptStatus.ERROR
                and len(attempts) <= ex.max_retries
                and rt.stopped is None
                and should_retry(out.error or "", out.retryable, ex.retry_pattern_list)
            )
            self.progress.emit(
                AttemptFinished(
                    self.name,
                    task.id,
                    n,
                    status=out.status,
                    reward=out.reward,
                    error=out.error,
                    duration_s=out.duration_s,
                    final=not retry,
                    model_retries=int((out.usage or {}).get("retries", 0)),
                    sample=sample,
                )
            )
            if not retry:
                break
            self.progress.emit(RetryScheduled(self.name, task.id, n, error=out.error or "", sample=sample))
            n += 1
        row = task_row(out, attempts, sample)
        self._keep((task.id, sample), row)
        self.store.writer.later(self._append, (task.id, sample), row, out)  # after the attempt's result.json
        self.progress_record.changed()
        if self.store.writer.failed is not None and rt.stopped is None:  # its work could not be kept: no more
            rt.stopped = record_write_error(self.store, self.store.writer.failed)
        if rt.stopped is not None:  # e.g. a dead model endpoint: the request ends here
            raise rt.stopped

    # ------------------------------------------------------------------ record
    def _run_record(self, status: RunStatus, metrics: RunMetrics | ErrorCounted | None = None) -> RunRecord:
        return {
            "run_id": self.store.run_id,
            "run_name": self.run_name,
            "request": self.name,
            "status": status,
            **self.sessions.record(len(self.rows), status, None if status == RunStatus.RUNNING else datetime.now(UTC)),
            "updated_at": datetime.now(UTC).isoformat(),
            "n_tasks": self.n_tasks,
            "n_samples": self.n_tasks * self.cfg.execution.n_attempts,
            "n_finished": len(self.rows),
            "n_errors": metrics["n_errors"] if metrics else 0,
            "agentcompass_version": _version(),
            "counts": metrics["errors_by_class"] if metrics else None,
            **self._budget_record(),
        }

    def _budget_record(self) -> BudgetRecord:
        """``budget``: each active budget's limits, spending and whether (and when) it was reached."""
        active = self.rt.budgets if self.rt is not None else []
        return {"budget": [b.record() for b in active]} if active else {}

    def _write_run_record(self, status: RunStatus, metrics: RunMetrics | None = None) -> None:
        self.store.write_run_record(self._run_record(status, metrics))

    def _append(self, key: tuple[str, int], row: ResultRow, final: AttemptOutcome) -> None:
        """A sample's results.jsonl line, in the store's writer thread after its attempts' files (its ``final``
        attempt's integrity verdict, scanned as its result.json was written, included). None after a failed
        write (the record is incomplete from there: such samples run again on reuse)."""
        if self.store.writer.failed is not None:
            self.unwritten.add(key)
            return
        if final.integrity is not None:  # a new row (the loop may be reading the rows): no dict changes size
            row = {**row, "integrity": summary_of(final.integrity)}  # type: ignore[typeddict-item]
            self.rows[key] = row
        try:
            self.store.append_result(row)
        except BaseException:
            self.unwritten.add(key)
            raise

    @property
    def n_recorded(self) -> int:
        """The samples whose final row is on disk (what a reuse keeps)."""
        return len(self.rows) - len(self.unwritten)

    def _keep(self, key: tuple[str, int], row: ResultRow) -> None:
        self.error_counts.replace(self.rows.get(key), row)
        self.rows[key] = row

    def _running_record(self) -> RunRecord:
        """run.json while the request runs (on the event loop; written by :class:`ThrottledRecord`): O(1), the
        counts are kept as rows come."""
        return self._run_record(RunStatus.RUNNING, self.error_counts.metrics())

    def _write_record(self, record: RunRecord) -> None:
        self.store.write_run_record(record)

    def finalize(self, status: RunStatus) -> RunResult:
        """Write results.jsonl (deduplicated), summary.json, run.json and the benchmark's reports."""
        self.progress_record.close()  # no progress write may land after the final one
        rows = [self.rows[key] for key in sorted(self.rows) if key not in self.unwritten]  # what is recorded
        if self.cfg.execution.integrity_scan and self.store.writer.failed is None:  # not once the disk refused
            scan_rows(self.store, rows, str(self.resolved.choices["benchmark"]))
        metrics = compute_metrics(rows)
        if status == RunStatus.COMPLETED and rows and metrics["n_errors"] == len(rows):
            status = RunStatus.FAILED
        if status == RunStatus.COMPLETED and self.rt is not None and any(b.reason for b in self.rt.budgets):
            status = RunStatus.STOPPED_BUDGET
        try:
            return self._write_final(rows, metrics, status)
        except StorageError as exc:  # the disk is full: what is on it stays as it was; the caller reports it
            self.storage_error = exc
            self.logger.debug("%s: the final record could not be written: %s", self.name, exc)
            status = RunStatus.FAILED
            return self._result(rows, metrics, status)

    def _write_final(self, rows: list[ResultRow], metrics: RunMetrics, status: RunStatus) -> RunResult:
        store = self.store
        store.rewrite_results(rows)
        try:
            self.extra_paths.update(self.rt.benchmark.finalize(store.run_dir, rows) or {})
            if (figures := SUMMARY_FIGURES.of(self.rt.benchmark)) is not None:
                metrics = {**metrics, "benchmark_figures": figures(rows)}
        except StorageError:
            raise
        except Exception as exc:
            self.logger.error("benchmark report failed: %s", exc)
            status = RunStatus.FAILED
        result = self._result(rows, metrics, status)
        store.write_summary(result)
        self._write_run_record(status, metrics)
        return result

    def _result(self, rows: list[ResultRow], metrics: RunMetrics, status: RunStatus) -> RunResult:
        return {
            "metadata": self._metadata(status),
            "metrics": metrics,
            "summary": build_summary(rows, self._not_run(status)),
            "paths": {**self.store.paths(self.cfg.runtime.log_file), **self.extra_paths},
        }

    def _not_run(self, status: RunStatus) -> list[NotRunTask]:
        """The planned samples with no row: not started, or started and cut short, and why."""
        missing = [(task, sample, n) for task, sample, n, _ in self.pending if (task.id, sample) not in self.rows]
        if not missing:
            return []
        store, stopped = self.store, self.rt.stopped if self.rt is not None else None
        started = [(t.id, s, max(store.attempts_of(t.id, s), default=0) >= n) for t, s, n in missing]
        return not_run_rows(started, not_run_reason(status, stopped))

    async def afinalize(self, status: RunStatus) -> RunResult:
        """:meth:`finalize`, then with ``execution.enable_analysis`` the post-run analysis (no judge after a
        timeout or cancellation): ``analysis.json`` / ``analysis.md``, recorded in ``paths`` and summary.json."""
        try:
            await self.store.writer.flush()  # every attempt's files first
        except Exception as exc:
            self.write_error = record_write_error(self.store, exc)
            self.logger.debug("request %s: %s", self.name, self.write_error)  # the request's outcome names it
            status = RunStatus.FAILED
        result = self.finalize(status)
        ex = self.cfg.execution
        ended = result["metadata"]["status"] in (RunStatus.COMPLETED, RunStatus.FAILED)  # not cut short or over budget
        if ex.integrity_review and ended and self.roles is not None and self.store.writer.failed is None:
            rows = [self.rows[key] for key in sorted(self.rows) if key not in self.unwritten]
            result = await review_finished(self.store, rows, self.roles, ex.integrity_review_params, result)
        if ex.enable_analysis:
            judge = result["metadata"]["status"] in (RunStatus.COMPLETED, RunStatus.FAILED)
            result = await self.hooks.analysis(result, ex.analysis_params, self.logger, judge)
        return result

    def _metadata(self, status: RunStatus) -> RunMetadata:
        data, finished = self.resolved.data, datetime.now(UTC)
        model = data["model"]
        return {
            "run_id": self.store.run_id,
            "run_name": self.run_name,
            "request": self.name,
            "status": status,
            **self.sessions.record(len(self.rows), status, finished),
            "finished_at": finished.isoformat(),
            "benchmark": self.resolved.choices["benchmark"],
            "harness": self.resolved.choices["harness"],
            "model": redact(
                {"id": model.get("id"), "protocol": model.get("api_protocol"), "base_url": model.get("base_url")}
            ),
            "environment": self.resolved.choices["environment"],
            "agentcompass_version": _version(),
            "config": redact(data),
            **_harness_info(self.components.harness if self.components else None),
            **_price_info(self.components.model if self.components else None),
            **self._budget_record(),
            "schema_version": SCHEMA_VERSION,
        }

    @property
    def log_path(self) -> Path:
        return self.store.log_path(self.cfg.runtime.log_file)

    def release(self) -> None:
        """Give up the run's lock (idempotent)."""
        self.progress_record.close()
        if self.lock is not None:
            self.lock.release()

    async def aclose(self) -> None:
        """Close the services, then the model client and the environment provider; give up the lock."""
        await self.services.aclose()
        self.release()
        if self.rt is None:
            return
        for part in (self.rt.model, self.rt.roles, self.rt.provider):
            if part is not None:
                try:
                    await part.aclose()
                except Exception as exc:
                    logging.getLogger("agentcompass").debug("aclose failed: %s", exc)
