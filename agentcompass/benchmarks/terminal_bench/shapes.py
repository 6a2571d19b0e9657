"""The shapes of Terminal-Bench / Harbor data as this package reads and writes it: the datasets of Harbor's
``registry.json``, the record kept beside a materialized dataset, the start-up hooks found in an environment and
the ``details`` of a verifier's grade."""

from __future__ import annotations

from typing import TypedDict


class RegistryTask(TypedDict, total=False):
    """A task of a Harbor registry dataset (``registry.json``'s ``tasks[]``)."""

    name: str | None
    git_url: str | None
    git_commit_id: str | None
    path: str | None


class RegistryDataset(TypedDict, total=False):
    """A dataset of Harbor's ``registry.json`` (Harbor 0.26's ``JsonRegistryClient``)."""

    name: str
    version: str | None
    description: str
    tasks: list[RegistryTask]
    metrics: list[dict[str, object]]


class RegistryRecord(TypedDict):
    """What a materialized dataset records of its registry entry (``dataset`` of ``.agentcompass-registry.json``)."""

    name: str
    version: str | None
    tasks: list[RegistryTask]


class HookFile(TypedDict, total=False):
    """A start-up hook file of an environment's snapshot: a file's hash and excerpt, or a program's form."""

    sha256: str
    excerpt: str
    form: str


class StartupHook(TypedDict, total=False):
    """A start-up hook the agent added or changed (``startup_hooks_changed`` of a grade's details)."""

    path: str
    kind: str
    change: str
    excerpt: str
    before: str
    sha256: str
    form: str
    neutralized: bool


class VerifierDetails(TypedDict):
    """The ``details`` of a Terminal-Bench verifier's grade (before the layout's own additions)."""

    reward_file: str
    test_exit_code: int | None
    timed_out: bool
    verifier_duration_s: float
    reward_files_present: list[str]
    reward_files_unexpected: list[str]
    reward_files_left_by_agent: dict[str, str]
    verifier_logs_left_by_agent: dict[str, str]
    startup_hooks_changed: list[StartupHook]
