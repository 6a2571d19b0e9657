"""(repository, version) -> how to evaluate an instance: test command, log parser, install / preparation steps.

Classic rows (the 12 SWE-bench columns) are looked up in the official tables: :data:`.spec_table.REPOS` (Python)
and :mod:`.spec_table_languages` (every other language); a pair that is not there is an error naming both (add
it with the benchmark's ``repo_specs``). Rows carrying the 5.x columns keep them: ``eval_script`` is used
verbatim, ``log_parser`` / ``eval_type`` win over the table. A Python test command is the version's base command
followed by the test files ``test_patch`` touches (Django: dotted modules); other languages run the version's
commands as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentcompass.errors import DatasetError

from . import spec_table_languages
from .shapes import SweBenchInstance
from .spec_table import REPOS

NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")
ANY_VERSION = "*"
PYTHON = "py"


@dataclass(frozen=True)
class RepoSpec:
    """How one (repository, version) is tested."""

    test_cmd: str
    log_parser: str
    install: str | None = None  # run before the tests (rebuilds patched extensions)
    eval_commands: tuple[str, ...] = ()  # environment preparation (locale, variables)
    eval_type: str = "pass_and_fail"
    language: str = PYTHON  # the official harness's extension name: py, js, java, go, rs, c, php, rb
    build: tuple[str, ...] = ()  # non-Python: build steps run after the test patch applies


@dataclass
class InstanceSpec:
    """Everything the grader needs for one instance."""

    log_parser: str
    eval_type: str
    test_cmd: str
    install: str | None = None
    eval_commands: list[str] = field(default_factory=list)
    eval_script: str | None = None  # a dataset-provided script (5.x); used verbatim when set
    language: str = "py"
    build: list[str] = field(default_factory=list)


def _table_spec(repo: str, version: str) -> RepoSpec | None:
    entry = REPOS.get(repo)
    if entry is None:
        facts = spec_table_languages.facts(repo, version)
        if facts is None:
            return None
        return RepoSpec(
            "\n".join(facts["test_cmd"]), facts["log_parser"], language=facts["language"], build=tuple(facts["build"])
        )
    for versions, spec in entry["versions"]:
        if version in versions:
            return RepoSpec(
                spec["test_cmd"], entry["log_parser"], spec.get("install"), tuple(spec.get("eval_commands", ()))
            )
    return None


def known_versions(repo: str) -> list[str]:
    if repo not in REPOS:
        return spec_table_languages.versions(repo)
    return [v for versions, _ in REPOS[repo]["versions"] for v in versions]


def known_repos() -> list[str]:
    """Every repository of the official tables, Python first."""
    return [*REPOS, *spec_table_languages.repos()]


def version_spec(repo: str, version: str, extra: dict[str, dict[str, RepoSpec]] | None = None) -> RepoSpec:
    """The spec of (``repo``, ``version``): ``extra`` (the user's ``repo_specs``) first, then the official table."""
    user = (extra or {}).get(repo, {})
    spec = user.get(version) or user.get(ANY_VERSION) or _table_spec(repo, version)
    if spec is not None:
        return spec
    if repo in REPOS or spec_table_languages.versions(repo):
        shown = ", ".join(known_versions(repo))
        raise DatasetError(
            f"SWE-bench has no evaluation spec for repo {repo!r} version {version!r} (known "
            f"versions: {shown}); add it under benchmark_params.repo_specs"
        )
    raise DatasetError(
        f"SWE-bench has no evaluation spec for repo {repo!r} version {version!r} (not a SWE-bench "
        f"repository); add it under benchmark_params.repo_specs, or use a dataset whose rows carry "
        f"eval_script, log_parser and eval_type"
    )


def resolve_spec(row: SweBenchInstance, extra: dict[str, dict[str, RepoSpec]] | None = None) -> InstanceSpec:
    """Per-instance columns (``eval_script``, ``log_parser``, ``eval_type``) win over the table, which is not
    consulted at all when a row carries the three of them."""
    eval_script, log_parser, eval_type = row.get("eval_script") or None, row.get("log_parser"), row.get("eval_type")
    if eval_script and log_parser and eval_type:
        return InstanceSpec(log_parser=log_parser, eval_type=eval_type, test_cmd="", eval_script=eval_script)
    spec = version_spec(row["repo"], row["version"], extra)
    test_cmd = spec.test_cmd
    if spec.language == PYTHON:
        test_cmd = " ".join([spec.test_cmd, *get_test_directives(row["repo"], row["test_patch"])])
    return InstanceSpec(
        log_parser=log_parser or spec.log_parser,
        eval_type=eval_type or spec.eval_type,
        test_cmd=test_cmd,
        install=spec.install,
        eval_commands=list(spec.eval_commands),
        eval_script=eval_script,
        language=spec.language,
        build=list(spec.build),
    )


def get_test_directives(repo: str, test_patch: str) -> list[str]:
    """Test paths named by ``diff --git a/... b/<path>`` headers, minus non-test files; Django: dotted modules."""
    paths = re.findall(r"diff --git a/.* b/(.*)", test_patch)
    paths = [p for p in paths if not p.endswith(NON_TEST_EXTS)]
    if repo != "django/django":
        return paths
    modules = []
    for path in paths:
        path = path[: -len(".py")] if path.endswith(".py") else path
        path = path[len("tests/") :] if path.startswith("tests/") else path
        modules.append(path.replace("/", "."))
    return modules
