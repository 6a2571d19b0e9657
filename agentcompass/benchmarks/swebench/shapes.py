"""The shapes of SWE-bench's data as this package reads and writes it: a dataset instance (the published
columns of ``princeton-nlp/SWE-bench`` and its variants), a prediction, ``report.json`` and the run report
(as swebench 5.x writes them), the results rows ``finalize`` reads, and the rows of the spec tables."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class ImageAsset(TypedDict):
    """A file of SWE-bench Multimodal's ``image_assets`` (downloaded before the tests run)."""

    path: str
    url: str


class SweBenchInstance(TypedDict):
    """A SWE-bench dataset instance after :func:`.dataset.normalize_row` (test lists decoded, text fields str)."""

    instance_id: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str
    problem_statement: str
    hints_text: str
    created_at: str
    version: str
    FAIL_TO_PASS: list[str]
    PASS_TO_PASS: list[str]
    environment_setup_commit: str
    difficulty: NotRequired[str | None]
    image: NotRequired[str | None]
    eval_script: NotRequired[str | None]
    log_parser: NotRequired[str | None]
    eval_type: NotRequired[str | None]
    image_assets: NotRequired[str | dict[str, list[ImageAsset]] | None]


class Prediction(TypedDict):
    """A SWE-bench prediction record (``preds.jsonl``'s lines)."""

    instance_id: str
    model_name_or_path: str
    model_patch: str | None


class TestsPart(TypedDict):
    """One category of ``tests_status`` in ``report.json``."""

    success: list[str]
    failure: list[str]


class InstanceReport(TypedDict):
    """The entry of one instance in ``report.json`` (swebench 5.x's ``get_eval_report``)."""

    patch_is_None: bool
    patch_exists: bool
    patch_successfully_applied: bool
    resolved: bool
    infra_failure: bool
    infra_failure_reason: NotRequired[str]
    tests_status: NotRequired[dict[str, TestsPart]]


class RunReport(TypedDict):
    """The run report ``<model>.<run_id>.json`` (swebench 5.x's ``make_run_report``, schema_version 2)."""

    total_instances: int
    submitted_instances: int
    completed_instances: int
    resolved_instances: int
    unresolved_instances: int
    infra_failure_instances: int
    ambiguous_failure_instances: int
    empty_patch_instances: int
    error_instances: int
    completed_ids: list[str]
    incomplete_ids: list[str]
    empty_patch_ids: list[str]
    submitted_ids: list[str]
    resolved_ids: list[str]
    unresolved_ids: list[str]
    infra_failure_ids: list[str]
    ambiguous_failure_ids: list[str]
    failure_reasons: dict[str, str]
    error_ids: list[str]
    schema_version: int


class ResultRow(TypedDict, total=False):
    """The fields of a run's results row that ``finalize`` reads (the orchestrator writes more)."""

    task_id: str
    sample: int | None
    attempt_dir: str | None


class VersionSpec(TypedDict, total=False):
    """The spec of some versions of a repository in :data:`.spec_table.REPOS`."""

    test_cmd: str
    install: str
    eval_commands: list[str]


class RepoEntry(TypedDict):
    """A repository of :data:`.spec_table.REPOS`: its log parser and specs by versions."""

    log_parser: str
    versions: list[tuple[tuple[str, ...], VersionSpec]]


class LanguageVersion(TypedDict, total=False):
    """A version's commands in ``spec_table_languages.json``."""

    test_cmd: list[str]
    build: list[str]


class LanguageRepo(TypedDict):
    """A repository of ``spec_table_languages.json`` (SWE-bench Multilingual's)."""

    language: str
    log_parser: str
    versions: dict[str, LanguageVersion]


class VersionFacts(TypedDict):
    """What :func:`.spec_table_languages.facts` gives for a (repo, version)."""

    language: str
    log_parser: str
    test_cmd: list[str]
    build: list[str]
