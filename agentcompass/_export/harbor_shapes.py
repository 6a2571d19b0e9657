"""The documents of a Harbor 0.26 job as ``agentcompass export harbor`` writes them: a trial's ``config.json``
(``TrialConfig``) and ``result.json`` (``TrialResult``), the job's ``config.json`` (``JobConfig``) and
``result.json`` (``JobResult`` with its ``JobStats``), with the field names of Harbor's models."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class TaskRef(TypedDict):
    """Harbor's ``TaskConfig`` / ``LocalTaskId``: the task's directory."""

    path: str


class AgentConfig(TypedDict):
    name: str
    model_name: str | None


class EnvironmentConfig(TypedDict):
    type: str | None  # docker, or None for any other environment
    delete: bool


class TrialConfig(TypedDict):
    """A trial's ``config.json`` (Harbor's ``TrialConfig``)."""

    task: TaskRef
    trial_name: str
    trials_dir: str
    agent: AgentConfig
    environment: EnvironmentConfig
    job_id: str


class TimingInfo(TypedDict):
    started_at: str
    finished_at: str


class Timings(TypedDict):
    """A trial's start and end, and of each phase that ran (rebuilt from the attempt's phase durations)."""

    started_at: str
    finished_at: str
    environment_setup: NotRequired[TimingInfo]
    agent_execution: NotRequired[TimingInfo]
    verifier: NotRequired[TimingInfo]


class AgentResult(TypedDict):
    """Harbor's ``AgentContext``: tokens, cost and what the agent phase recorded."""

    n_input_tokens: int
    n_cache_tokens: int
    n_output_tokens: int
    cost_usd: float | None
    metadata: dict[str, object]


class PolicyOverride(TypedDict):
    """What agentcompass did with the attempt's error: retried, graded, reward counted."""

    should_retry: bool
    should_grade: bool
    has_valid_reward: bool


class ExceptionInfo(TypedDict):
    exception_type: str
    exception_message: str
    exception_traceback: str
    occurred_at: str
    policy_override: PolicyOverride


class ModelInfo(TypedDict):
    name: str | None
    provider: str | list[str] | None


class AgentInfo(TypedDict):
    name: str
    version: str
    model_info: ModelInfo | None


class VerifierResult(TypedDict):
    rewards: dict[str, float]


class TrialResult(Timings):
    """A trial's ``result.json`` (Harbor's ``TrialResult``)."""

    schema_version: int
    id: str
    task_name: str
    trial_name: str
    trial_uri: str
    task_id: TaskRef
    source: str
    task_checksum: str
    config: TrialConfig
    agent_info: AgentInfo
    agent_result: AgentResult
    verifier_result: VerifierResult | None
    exception_info: ExceptionInfo | None


class EvalStats(TypedDict):
    """One eval's stats (agent, model, dataset): Harbor's ``AgentDatasetStats``."""

    n_trials: int
    n_errors: int
    metrics: list[dict[str, float]]
    pass_at_k: dict[int, float]
    reward_stats: dict[str, dict[str, list[str]]]
    exception_stats: dict[str, list[str]]


class JobStats(TypedDict):
    """The job's ``stats`` (Harbor's ``JobStats``)."""

    n_completed_trials: int
    n_errored_trials: int
    n_running_trials: int
    n_pending_trials: int
    n_retries: int
    n_cancelled_trials: int
    evals: dict[str, EvalStats]
    n_input_tokens: int
    n_cache_tokens: int
    n_output_tokens: int
    cost_usd: float | None


class RetryConfig(TypedDict):
    max_retries: int


class JobConfig(TypedDict):
    """The job's ``config.json`` (Harbor's ``JobConfig``)."""

    schema_version: int
    job_name: str
    jobs_dir: str
    n_attempts: int
    n_concurrent_trials: int
    retry: RetryConfig
    environment: EnvironmentConfig
    agents: list[AgentConfig]
    tasks: list[TaskRef]


class JobResult(TypedDict):
    """The job's ``result.json`` (Harbor's ``JobResult``, without ``trial_results``, as Harbor writes it)."""

    schema_version: int
    id: str
    started_at: str
    updated_at: str | None
    finished_at: str | None
    n_total_trials: int
    stats: JobStats
