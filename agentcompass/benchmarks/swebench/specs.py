"""Repository -> how to test it: test command, log parser, install / preparation steps.

SWE-bench 4.x derived these from a per-repo, per-version table; 5.x datasets may carry ``eval_script`` and
``log_parser`` columns instead (those win, see :func:`resolve_spec`). The test command is the repo's base
command followed by the test files the ``test_patch`` touches (Django: dotted module names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

PYTEST = "pytest --no-header -rA --tb=no -p no:cacheprovider"
PIP_INSTALL_E = "python -m pip install -e ."

NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")
FAIL_ONLY_REPOS = frozenset({"chartjs/Chart.js", "processing/p5.js", "markedjs/marked", "bpmn-io/bpmn-js",
                             "openlayers/openlayers", "eslint/eslint"})
_DJANGO_LOCALE = [
    "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
    "export LANG=en_US.UTF-8",
    "export LANGUAGE=en_US:en",
    "export LC_ALL=en_US.UTF-8",
]


@dataclass(frozen=True)
class RepoSpec:
    """How one repository is tested."""

    test_cmd: str = PYTEST
    log_parser: str = "parse_log_pytest"
    install: str | None = None                  # re-run before the tests (rebuilds patched extensions)
    eval_commands: tuple[str, ...] = ()         # environment preparation (locale, config edits)
    eval_type: str = "pass_and_fail"


REPO_SPECS: dict[str, RepoSpec] = {
    "astropy/astropy": RepoSpec("pytest -rA -vv -o console_output_style=classic --tb=no", "parse_log_astropy",
                                "python -m pip install -e .[test] --verbose"),
    "django/django": RepoSpec("./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1",
                              "parse_log_django", PIP_INSTALL_E, tuple(_DJANGO_LOCALE)),
    "marshmallow-code/marshmallow": RepoSpec(PYTEST, "parse_log_marshmallow", "python -m pip install -e '.[dev]'"),
    "matplotlib/matplotlib": RepoSpec(PYTEST, "parse_log_matplotlib", PIP_INSTALL_E),
    "mwaskom/seaborn": RepoSpec("pytest --no-header -rA", "parse_log_seaborn", "python -m pip install -e .[dev]"),
    "pallets/flask": RepoSpec(PYTEST, "parse_log_flask", PIP_INSTALL_E),
    "psf/requests": RepoSpec(PYTEST, "parse_log_requests", "python -m pip install ."),
    "pvlib/pvlib-python": RepoSpec(PYTEST, "parse_log_pvlib", "python -m pip install -e .[all]"),
    "pydata/xarray": RepoSpec(PYTEST, "parse_log_xarray", PIP_INSTALL_E),
    "pydicom/pydicom": RepoSpec(PYTEST, "parse_log_pydicom", PIP_INSTALL_E),
    "pylint-dev/astroid": RepoSpec(PYTEST, "parse_log_astroid", PIP_INSTALL_E),
    "pylint-dev/pylint": RepoSpec(PYTEST, "parse_log_pylint", PIP_INSTALL_E),
    "pytest-dev/pytest": RepoSpec("pytest -rA", "parse_log_pytest", PIP_INSTALL_E),
    "pyvista/pyvista": RepoSpec(PYTEST, "parse_log_pyvista", PIP_INSTALL_E),
    "scikit-learn/scikit-learn": RepoSpec(PYTEST, "parse_log_scikit",
                                          "python -m pip install -v --no-use-pep517 --no-build-isolation -e ."),
    "sphinx-doc/sphinx": RepoSpec("tox --current-env -epy39 -v --", "parse_log_sphinx",
                                  "python -m pip install -e .[test]", ("sed -i 's/pytest/pytest -rA/' tox.ini",)),
    "sqlfluff/sqlfluff": RepoSpec(PYTEST, "parse_log_sqlfluff", PIP_INSTALL_E),
    "sympy/sympy": RepoSpec("PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
                            "parse_log_sympy", PIP_INSTALL_E),
}

# Version-specific differences of the table above: (repo, version) -> fields to replace.
VERSION_OVERRIDES: dict[tuple[str, str], dict[str, Any]] = {
    ("django/django", "1.9"): {"test_cmd": "./tests/runtests.py --verbosity 2"},
}


@dataclass
class InstanceSpec:
    """Everything the grader needs for one instance."""

    log_parser: str
    eval_type: str
    test_cmd: str
    install: str | None = None
    eval_commands: list[str] = field(default_factory=list)
    eval_script: str | None = None          # a dataset-provided script (5.x); used verbatim when set


def repo_spec(repo: str, version: str, extra: dict[str, RepoSpec] | None = None) -> RepoSpec:
    """The table entry of ``repo`` (``extra`` first); unknown repos get plain pytest."""
    spec = (extra or {}).get(repo) or REPO_SPECS.get(repo) or RepoSpec()
    override = VERSION_OVERRIDES.get((repo, version))
    spec = replace(spec, **override) if override and repo not in (extra or {}) else spec
    if repo in FAIL_ONLY_REPOS and spec.eval_type == "pass_and_fail":
        spec = replace(spec, eval_type="fail_only")
    return spec


def resolve_spec(row: dict[str, Any], extra: dict[str, RepoSpec] | None = None) -> InstanceSpec:
    """Per-instance columns (``log_parser``, ``eval_type``, ``eval_script``) override the repo table."""
    spec = repo_spec(row["repo"], row["version"], extra)
    return InstanceSpec(
        log_parser=row.get("log_parser") or spec.log_parser,
        eval_type=row.get("eval_type") or spec.eval_type,
        test_cmd=" ".join([spec.test_cmd, *get_test_directives(row["repo"], row["test_patch"])]),
        install=spec.install,
        eval_commands=list(spec.eval_commands),
        eval_script=row.get("eval_script") or None,
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
        path = path[len("tests/"):] if path.startswith("tests/") else path
        modules.append(path.replace("/", "."))
    return modules


def patch_files(patch: str) -> tuple[list[str], list[str]]:
    """(files the patch modifies or deletes, files it creates), from the per-file headers of a git diff."""
    modified: list[str] = []
    created: list[str] = []
    for section in re.split(r"^diff --git ", patch, flags=re.M)[1:]:
        header = section.split("\n@@", 1)[0]
        source = re.search(r"^--- (?:a/)?(.+?)\s*$", header, re.M)
        target = re.search(r"^\+\+\+ (?:b/)?(.+?)\s*$", header, re.M)
        names = re.match(r"a/(.*?) b/(.*)$", section.split("\n", 1)[0])
        if "\nnew file mode" in header or (source and source.group(1) == "/dev/null"):
            path = target.group(1) if target and target.group(1) != "/dev/null" else (names and names.group(2))
            if path:
                created.append(path)
        elif source and source.group(1) != "/dev/null":
            modified.append(source.group(1))
        elif names:
            modified.append(names.group(1))
    return modified, created
