"""Pydantic v2 models validating the composed request config (components are validated by their own classes).

This module is also the one place the runtime options are named: every field a caller may set directly carries
an :func:`option` marker (SDK keyword, CLI flag, entry points), and :mod:`agentcompass._config.options` derives
the table that the SDK signatures, the CLI, ``launch`` and the orchestration spec all use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
_SAFE_NAME = SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+@=-]{0,199}$")  # a run_name / run_id
RUN, LAUNCH, BOTH = ("run",), ("launch",), ("run", "launch")


def option(
    default: Any = None,
    *,
    entries: tuple[str, ...] = RUN,
    cli: str | None = "",
    form: str = "",
    scope: str = "",
    key: str = "",
    path: bool = False,
    metavar: str = "",
    short: str = "",
    narrower: dict[str, Any] | None = None,
    **field: Any,
) -> Any:
    """A config field (or request input) that is also a keyword of the entry points in ``entries``.

    ``cli``: the flag ("" derives ``--field-name``; None: SDK only). ``form``: how the CLI parses it when the
    annotation does not say (``repeat``: a repeatable flag; ``no-flag``: ``--no-x`` sets False; ``level``: a log
    level in any case; ``reuse``: ``--reuse [RUN_ID]``; ``protocol``; ``positional``). ``scope`` (runtime
    fields): where it lives in an orchestration (``orchestration``: the top-level ``runtime``; ``request``: a
    request's ``runtime``; ``top``: a top-level field). ``key``: the config key a request input sets. ``path``:
    the SDK also accepts ``pathlib.Path`` values. ``short``: a one-letter alias of the CLI flag (``-k``).
    ``narrower``: entry point -> a narrower type that entry point takes (``{"run": int}``: a single request
    takes whole seconds).
    """
    marker = {
        "entries": entries,
        "cli": cli,
        "form": form,
        "scope": scope,
        "key": key,
        "path": path,
        "metavar": metavar,
        "short": short,
        "narrower": dict(narrower or {}),
    }
    if default is dict or default is list:
        return Field(default_factory=default, json_schema_extra={"option": marker}, **field)
    return Field(default, json_schema_extra={"option": marker}, **field)


class Strict(BaseModel):
    """The base of every config model: an unknown key is an error."""

    model_config = ConfigDict(extra="forbid")


_Strict = Strict


def default_of(model: type[BaseModel], name: str) -> Any:
    """The schema's default of ``model.name`` (what a config that leaves it out gets)."""
    field = model.model_fields[name]
    return field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]


class RuntimeConfig(_Strict):
    task_concurrency: int = option(
        4,
        entries=BOTH,
        scope="top",
        metavar="N",
        ge=1,
        description="max attempts running at once, retries included, across the request or the whole orchestration",
    )
    results_dir: str = option(
        "outputs", entries=BOTH, scope="orchestration", path=True, metavar="PATH", description="root of run directories"
    )
    data_dir: str | None = option(
        None,
        entries=BOTH,
        scope="orchestration",
        path=True,
        metavar="PATH",
        description="datasets, cloned task repositories and caches "
        "(default $AGENTCOMPASS_DATA_DIR, else ~/.cache/agentcompass)",
    )
    timeout_seconds: float | None = option(
        None,
        entries=BOTH,
        scope="orchestration",
        metavar="SECONDS",
        narrower={"run": int},
        gt=0,
        description="wall-clock bound on the whole request / orchestration: on expiry the attempts in flight are "
        "cancelled, finished results kept, RunTimeoutError raised (CLI exit 124)",
    )
    provider_limits: dict[str, int] = option(
        dict,
        entries=BOTH,
        cli="--provider-limit",
        scope="orchestration",
        metavar="PROVIDER=N",
        description="max concurrent attempts on environment provider P (docker, local), or max concurrent calls to "
        "model provider P (the model's provider, default the base URL's host:port)",
    )
    env_open_qps: dict[str, float] = option(
        dict,
        entries=BOTH,
        scope="orchestration",
        metavar="PROVIDER=QPS",
        description="max environment opens per second per provider",
    )
    progress: Literal["auto", "plain", "none"] = option(
        "auto",
        entries=BOTH,
        scope="orchestration",
        description="auto: a tqdm bar on a terminal (done/total, running, mean reward, errors, retries), plain lines "
        "otherwise; plain; none",
    )
    log_level: LogLevel = option(
        "INFO",
        entries=BOTH,
        form="level",
        scope="orchestration",
        metavar="LEVEL",
        description="console log level (DEBUG also shows tracebacks)",
    )
    file_log_level: LogLevel = option(
        "DEBUG",
        entries=BOTH,
        form="level",
        scope="orchestration",
        metavar="LEVEL",
        description="level of the run's run.log",
    )
    log_file: str | None = option(
        None, entries=BOTH, cli=None, scope="orchestration", path=True, description="another path for the file log"
    )
    auto_install_dependencies: bool = option(
        False,
        entries=BOTH,
        scope="orchestration",
        description="install missing optional extras (and tools inside environments) instead of failing "
        "with the command to run",
    )
    reuse: bool = option(
        False,
        form="reuse",
        scope="request",
        metavar="RUN_ID",
        description="continue the latest run of this run name, or RUN_ID",
    )
    reuse_run_id: str | None = option(None, cli=None, scope="request", description="the run id to reuse")
    checkpoint_resume: bool = option(
        True,
        cli="--no-checkpoint-resume",
        form="no-flag",
        scope="request",
        description="when reusing, only re-verify a task whose agent phase finished",
    )
    recipe_dirs: list[str] = option(
        list,
        cli="--recipe-dir",
        form="repeat",
        scope="orchestration",
        path=True,
        metavar="PATH",
        description="extra directories searched for recipes",
    )
    orchestration_cost_limit_usd: float | None = option(
        None,
        entries=LAUNCH,
        scope="orchestration",
        metavar="USD",
        gt=0,
        description="budget of the whole orchestration (every request): no attempt starts once reached",
    )
    orchestration_token_limit: int | None = option(
        None,
        entries=LAUNCH,
        scope="orchestration",
        metavar="N",
        ge=1,
        description="the same for input + output tokens of every request's model calls",
    )
    cleanup_grace_seconds: float = option(
        10,
        entries=LAUNCH,
        scope="orchestration",
        metavar="SECONDS",
        ge=0,
        description="time given to in-flight attempts to close after a cancel",
    )

    @field_validator("provider_limits")
    @classmethod
    def _limits(cls, v: dict[str, int]) -> dict[str, int]:
        for key, n in v.items():
            if n < 1:
                raise ValueError(f"provider limit for {key!r} must be >= 1, got {n}")
        return v

    @field_validator("env_open_qps")
    @classmethod
    def _qps(cls, v: dict[str, float]) -> dict[str, float]:
        for key, q in v.items():
            if not q > 0:
                raise ValueError(f"env_open_qps for {key!r} must be > 0, got {q}")
        return v

    @field_validator("data_dir")
    @classmethod
    def _data_dir(cls, v: str | None) -> str | None:
        blocker = (
            next((p for p in (Path(v).expanduser(), *Path(v).expanduser().parents) if p.exists()), None) if v else None
        )
        if blocker is not None and not blocker.is_dir():
            raise ValueError(f"{str(blocker)!r} is a file, not a directory")
        return v


class TimeoutsConfig(_Strict):
    env_open: float | None = Field(900, gt=0)
    agent: float | None = Field(None, gt=0)
    verifier: float | None = Field(None, gt=0)
    close: float = Field(60, gt=0)


class PrepareItem(_Strict):
    src: str  # a host file or directory, checked when the request is composed (not when an attempt runs)
    dst: str

    @field_validator("src")
    @classmethod
    def _exists(cls, v: str) -> str:
        if not Path(v).expanduser().exists():
            raise ValueError(f"does not exist on this host (cwd {Path.cwd()})")
        return v


class ArtifactsConfig(_Strict):
    prepare: list[PrepareItem] = Field(default_factory=list)
    save: list[str] = Field(default_factory=list)
    max_files: int = Field(200, ge=0)
    max_file_bytes: int = Field(10 * 2**20, ge=0)
    max_total_bytes: int = Field(100 * 2**20, ge=0)


class RayConfig(_Strict):
    """Where and how attempts run with ``executor: ray`` (docs/scale.md)."""

    address: str | None = Field(
        None,
        description="the cluster to connect to (host:6379 or auto); null: "
        "$RAY_ADDRESS, else a Ray instance started for the run",
    )
    num_cpus_per_attempt: float = Field(1, ge=0, description="CPUs Ray reserves for each running attempt")
    resources: dict[str, float] = Field(
        default_factory=dict,
        description="custom Ray resources each attempt needs (e.g. {docker: 1} to run only on nodes that declare it)",
    )
    runtime_env: dict[str, Any] = Field(
        default_factory=dict,
        description="Ray runtime_env of the attempts' worker processes (env_vars, pip, working_dir...)",
    )

    @field_validator("resources")
    @classmethod
    def _resources(cls, v: dict[str, float]) -> dict[str, float]:
        for key, n in v.items():
            if not n > 0:
                raise ValueError(f"resource {key!r} must be > 0, got {n}")
        return v


class ExecutionConfig(_Strict):
    n_attempts: int = option(
        1,
        cli="--attempts",
        short="-k",
        metavar="N",
        ge=1,
        description="independent samples (attempts) per task; retries are not samples",
    )
    executor: Literal["local", "ray"] = Field(
        "local",
        description="where attempts run: local (this process) or ray (a Ray cluster; pip install 'agentcompass[ray]')",
    )
    ray: RayConfig = Field(default_factory=RayConfig)
    max_retries: int = option(
        0,
        metavar="N",
        ge=0,
        description="extra attempts after a failed one (an error, not a low reward); each sample has its own",
    )
    retry_pattern_list: list[str] = option(
        list,
        metavar="JSON",
        description='regexes searched in "<ErrorType>: <message>" of a failed attempt; a match makes it retryable',
    )
    enabled_recipes: list[str] = option(
        list, cli="--recipe", form="repeat", metavar="ID", description="recipe ids applied in order"
    )
    keep_environment: bool = option(
        False, description="do not destroy environments; their ids / paths are recorded in each attempt's result"
    )
    end_agent_processes: bool = Field(
        True,
        description="hardening: end every process the agent left running (detached, nohup, tmux, background) "
        "before verification in the agent's environment; the command lines ended are recorded in each attempt's "
        "environment.agent_processes_ended (docs/integrity.md)",
    )
    enable_analysis: bool = option(False, description="write analysis.json / analysis.md after the run")
    integrity_scan: bool = option(
        True,
        cli="--no-integrity-scan",
        form="no-flag",
        description="scan every finished attempt for reward hacking when the run is finalised (docs/integrity.md)",
    )
    integrity_review: bool = option(
        False,
        description="after the scan, the judge model role (model_roles.judge) reviews the flagged attempts and a "
        "sample of clean resolved ones with a rubric (docs/integrity.md)",
    )
    integrity_review_params: dict[str, Any] = option(
        dict,
        metavar="JSON",
        description="integrity review settings: rubric (a file), sample (default 5), seed, concurrency, max_chars",
    )
    analysis_params: dict[str, Any] = option(
        dict, metavar="JSON", description="analysis settings (an optional judge model in analysis_params.model)"
    )
    timeouts: TimeoutsConfig = Field(default_factory=TimeoutsConfig)
    artifacts: ArtifactsConfig = Field(default_factory=ArtifactsConfig)
    cost_limit_usd: float | None = option(
        None,
        metavar="USD",
        gt=0,
        description="budget of the whole request (retries, samples and reused runs included): "
        "no attempt starts once its model calls cost this much",
    )
    token_limit: int | None = option(
        None, metavar="N", ge=1, description="the same for input + output tokens of the request's model calls"
    )
    budget_policy: Literal["finish", "cancel"] = option(
        "finish", description="when a budget is reached, attempts in flight finish, or are cancelled"
    )
    attempt_cost_limit_usd: float | None = option(
        None,
        metavar="USD",
        gt=0,
        description="per attempt: its agent phase ends (limit_hit cost_limit, still verified) once its calls cost this",
    )
    attempt_max_model_calls: int | None = option(
        None,
        metavar="N",
        ge=1,
        description="per attempt: model calls past this many are refused; the agent phase ends "
        "(limit_hit max_model_calls, still verified)",
    )
    attempt_max_tokens_total: int | None = option(
        None,
        metavar="N",
        ge=1,
        description="per attempt: the same once its calls spent this many input + output tokens "
        "(limit_hit max_tokens_total)",
    )

    @field_validator("retry_pattern_list")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for pattern in v:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
        return v


class OutputConfig(_Strict):
    run_name: str | None = option(
        None, metavar="NAME", description="run directory name (default <benchmark>__<harness>__<model>)"
    )
    run_id: str | None = option(
        None, metavar="ID", description="id of a new run directory (default: a sortable UTC timestamp + random suffix)"
    )

    @field_validator("run_name", "run_id")
    @classmethod
    def _safe(cls, v: str | None) -> str | None:
        if v is not None and not _SAFE_NAME.match(v):
            raise ValueError("must be 1-200 characters of letters, digits and ._+@=- (a directory name)")
        return v


class GatewayConfig(_Strict):
    """The model gateway (docs/gateway.md)."""

    model_map: dict[str, str] = Field(
        default_factory=dict,
        description="model name an agent asks for -> model id sent to the endpoint (others: the request's model id)",
    )


class ComponentSection(BaseModel):
    """A component section of the request config: its id, its class (``_target_``) and the fields its class's
    ``config_class`` validates (kept here as extra fields, validated when the component is built)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, serialize_by_alias=True)

    id: str | None = None  # the component id (for a model: the model name sent to the endpoint)
    target: str | None = Field(None, alias="_target_")  # None: nothing to build (the ``none`` model)

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    @property
    def fields(self) -> dict[str, Any]:
        """The component's own fields (what its ``config_class`` validates)."""
        return dict(self.model_extra or {})


class RequestConfig(_Strict):
    """The composed config of one request. Component sections are validated by their classes."""

    benchmark: ComponentSection
    harness: ComponentSection
    model: ComponentSection
    environment: ComponentSection
    runtime: RuntimeConfig = Field(default_factory=RuntimeConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    gateway: GatewayConfig = Field(default_factory=GatewayConfig)
    model_roles: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="a benchmark's or harness's other models by role (user, judge...): each the fields of a model "
        "section (id, base_url, api_key, api_protocol, params...), over the benchmark's default for the role and "
        "the main model's endpoint",
    )
    recipes: dict[str, Any] = Field(default_factory=dict)


PathLike = str | Path
Json = dict[str, Any]


class RequestInputs(_Strict):
    """The keywords that are not a field of runtime / execution / output: component choices and their
    parameters, config files, overrides and callbacks. ``key`` names the config key (or section) each sets."""

    benchmark: str | None = option(key="benchmark.id", form="positional", description="benchmark id")
    harness: str | None = option(key="harness.id", form="positional", description="harness id")
    model: str | None = option(
        key="model.id",
        form="positional",
        description="a file of conf/model/, else the model name sent to the endpoint; none for harnesses "
        "that need no model",
    )
    environment: str | None = option(key="environment.id", cli="--env", metavar="ID", description="environment id")
    config_path: PathLike | Sequence[PathLike] | None = option(
        entries=BOTH, cli="--config", form="repeat", metavar="PATH", description="YAML config files, in order"
    )
    overrides: Sequence[str] | None = option(form="positional", description="Hydra-style key=value overrides")
    benchmark_params: Json | None = option(
        key="benchmark",
        metavar="JSON",
        description="merged into the benchmark's config; an unknown key is an error naming the valid ones",
    )
    harness_params: Json | None = option(
        key="harness",
        metavar="JSON",
        description="merged into the harness's config; an unknown key is an error naming the valid ones",
    )
    environment_params: Json | None = option(
        key="environment",
        cli="--env-params",
        metavar="JSON",
        description="merged into the environment's config; an unknown key is an error naming the valid ones",
    )
    execution_params: Json | None = option(
        key="execution", metavar="JSON", description="deep-merged over execution (timeouts, artifacts...)"
    )
    model_base_url: str | None = option(key="model.base_url", metavar="URL", description="the model endpoint")
    model_api_key: str | None = option(key="model.api_key", metavar="KEY", description="the endpoint's key")
    model_api_protocol: str | list[str] | None = option(
        key="model.api_protocol",
        form="protocol",
        metavar="PROTOCOL",
        description="openai-chat, openai-responses, anthropic-messages, google-genai, auto, or a list tried in order "
        "(CLI: a JSON list or a comma list)",
    )
    model_params: Json | None = option(
        key="model.params", metavar="JSON", description="passed through to the API (temperature, max_tokens...)"
    )
    model_roles: Json | None = option(
        key="model_roles",
        metavar="JSON",
        description='other models by role, e.g. {"user": {"id": "gpt-4.1"}, "judge": {...}}: each a model '
        "section over the benchmark's default for the role and the main model's endpoint (docs/models.md)",
    )
    model_cache: Literal["off", "read_write", "read_only"] | None = option(
        key="model.cache", metavar="MODE", description="response cache: off, read_write or read_only"
    )
    replay: PathLike | None = option(
        key="model.replay",
        path=True,
        metavar="RUN_DIR",
        description="answer every model call from that run's recorded calls; never call the endpoint",
    )
    on_progress: Callable[[Any], Any] | None = option(entries=BOTH, cli=None, description="progress callback")
    on_request_finished: Callable[[Any], Any] | None = option(
        entries=LAUNCH, cli=None, description="called as each request finishes"
    )
