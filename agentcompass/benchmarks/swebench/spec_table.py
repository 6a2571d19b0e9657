"""SWE-bench's evaluation facts per (repository, version): test command, install step, preparation commands.

Data only. These are the values the official harness (``swebench`` 4.1.x, the last release that derives the
eval script from a classic dataset row) uses for every Python repository of SWE-bench, SWE-bench Verified,
SWE-bench Lite and the SWE-bench dev split; ``tests/benchmarks/swebench/test_spec_agreement.py`` checks every
pair against that release. ``log_parser`` names a parser of :mod:`.log_parsers` (one per repository).

Layout: ``REPOS[repo] = {"log_parser": name, "versions": [(versions, spec), ...]}`` where ``spec`` holds
``test_cmd`` and optionally ``install`` (run before the tests) and ``eval_commands`` (run first).
"""

from __future__ import annotations

from .shapes import RepoEntry

PYTEST = "pytest -rA"
PYTEST_ASTROPY_CLASSIC = "pytest -rA -vv -o console_output_style=classic --tb=no"
PYTEST_SEABORN = "pytest --no-header -rA"
DJANGO = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1"
DJANGO_NO_PARALLEL = "./tests/runtests.py --verbosity 2"
SPHINX = "tox --current-env -epy39 -v --"
SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose"

PIP_E = "python -m pip install -e ."
SETUP_PY = "python setup.py install"

DJANGO_LOCALE_ENV = [
    "export LANG=en_US.UTF-8",
    "export LC_ALL=en_US.UTF-8",
    "export PYTHONIOENCODING=utf8",
    "export LANGUAGE=en_US:en",
]
DJANGO_LOCALE_GEN = [
    "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
    "export LANG=en_US.UTF-8",
    "export LANGUAGE=en_US:en",
    "export LC_ALL=en_US.UTF-8",
]


def _v(text: str) -> tuple[str, ...]:
    return tuple(text.split())


REPOS: dict[str, RepoEntry] = {
    "astropy/astropy": {
        "log_parser": "parse_log_astropy",
        "versions": [
            (
                _v("0.1 0.2 0.3 0.4 1.1 1.2 1.3"),
                {"test_cmd": PYTEST_ASTROPY_CLASSIC, "install": "python -m pip install -e .[test] --verbose"},
            ),
            (
                _v("3.0 3.1 3.2 4.1 4.2 4.3 5.0 5.1 5.2 v5.3"),
                {"test_cmd": PYTEST, "install": "python -m pip install -e .[test] --verbose"},
            ),
        ],
    },
    "django/django": {
        "log_parser": "parse_log_django",
        "versions": [
            (_v("1.4 1.5 1.6"), {"test_cmd": DJANGO, "install": SETUP_PY}),
            (
                _v("1.7 1.8 1.10 1.11 2.0 2.1 2.2"),
                {"test_cmd": DJANGO, "install": SETUP_PY, "eval_commands": DJANGO_LOCALE_ENV},
            ),
            (_v("1.9"), {"test_cmd": DJANGO_NO_PARALLEL, "install": SETUP_PY, "eval_commands": DJANGO_LOCALE_ENV}),
            (_v("3.0 3.1 3.2"), {"test_cmd": DJANGO, "install": PIP_E, "eval_commands": DJANGO_LOCALE_GEN}),
            (_v("4.0 4.1 4.2 5.0 5.1 5.2"), {"test_cmd": DJANGO, "install": PIP_E}),
        ],
    },
    "marshmallow-code/marshmallow": {
        "log_parser": "parse_log_marshmallow",
        "versions": [
            (
                _v("2.18 2.19 2.20 3.0 3.1 3.2 3.4 3.8 3.9 3.10 3.11 3.12 3.13 3.15 3.16 3.19"),
                {"test_cmd": PYTEST, "install": "python -m pip install -e '.[dev]'"},
            ),
        ],
    },
    "matplotlib/matplotlib": {
        "log_parser": "parse_log_matplotlib",
        "versions": [
            (
                _v("1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2"),
                {"test_cmd": PYTEST, "install": "python setup.py build; python setup.py install"},
            ),
            (_v("3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7"), {"test_cmd": PYTEST, "install": PIP_E}),
            (_v("3.8 3.9"), {"test_cmd": PYTEST, "install": 'python -m pip install --no-build-isolation -e ".[dev]"'}),
        ],
    },
    "mwaskom/seaborn": {
        "log_parser": "parse_log_seaborn",
        "versions": [
            (_v("0.11"), {"test_cmd": PYTEST_SEABORN, "install": PIP_E}),
            (_v("0.12 0.13 0.14"), {"test_cmd": PYTEST_SEABORN, "install": "python -m pip install -e .[dev]"}),
        ],
    },
    "pallets/flask": {
        "log_parser": "parse_log_flask",
        "versions": [
            (_v("2.0 2.1 2.2 2.3 3.0 3.1"), {"test_cmd": PYTEST, "install": PIP_E}),
        ],
    },
    "psf/requests": {
        "log_parser": "parse_log_requests",
        "versions": [
            (
                _v(
                    "0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10 2.11 2.12 2.17 2.18 2.19 "
                    "2.22 2.25 2.26 2.27 2.31 3.0"
                ),
                {"test_cmd": PYTEST, "install": "python -m pip install ."},
            ),
        ],
    },
    "pvlib/pvlib-python": {
        "log_parser": "parse_log_pvlib",
        "versions": [
            (
                _v("0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9"),
                {"test_cmd": PYTEST, "install": "python -m pip install -e .[all]"},
            ),
        ],
    },
    "pydata/xarray": {
        "log_parser": "parse_log_xarray",
        "versions": [
            (_v("0.12 0.18 0.19 0.20 2022.03 2022.06 2022.09 2023.07 2024.05"), {"test_cmd": PYTEST, "install": PIP_E}),
        ],
    },
    "pydicom/pydicom": {
        "log_parser": "parse_log_pydicom",
        "versions": [
            (_v("1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2 2.3 2.4 3.0"), {"test_cmd": PYTEST, "install": PIP_E}),
        ],
    },
    "pylint-dev/astroid": {
        "log_parser": "parse_log_astroid",
        "versions": [
            (_v("2.5 2.6 2.7 2.8 2.9 2.10 2.12 2.13 2.14 2.15 2.16 3.0"), {"test_cmd": PYTEST, "install": PIP_E}),
        ],
    },
    "pylint-dev/pylint": {
        "log_parser": "parse_log_pylint",
        "versions": [
            (
                _v("2.8 2.9 2.10 2.11 2.13 2.14 2.15 2.16 2.17 3.0 3.1 3.2 3.3 4.0"),
                {"test_cmd": PYTEST, "install": PIP_E},
            ),
        ],
    },
    "pytest-dev/pytest": {
        "log_parser": "parse_log_pytest",
        "versions": [
            (
                _v("4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0 6.2 6.3 7.0 7.1 7.2 7.4 8.0 8.1 8.2 8.3 8.4"),
                {"test_cmd": PYTEST, "install": PIP_E},
            ),
        ],
    },
    "pyvista/pyvista": {
        "log_parser": "parse_log_pyvista",
        "versions": [
            (
                _v(
                    "0.20 0.21 0.22 0.23 0.24 0.25 0.26 0.27 0.28 0.29 0.30 0.31 0.32 0.33 0.34 0.35 0.36 0.37 0.38 "
                    "0.39 0.40 0.41 0.42 0.43"
                ),
                {"test_cmd": PYTEST, "install": PIP_E},
            ),
        ],
    },
    "scikit-learn/scikit-learn": {
        "log_parser": "parse_log_scikit",
        "versions": [
            (
                _v("0.20 0.21 0.22 1.3 1.4 1.5 1.6"),
                {"test_cmd": PYTEST, "install": "python -m pip install -v --no-use-pep517 --no-build-isolation -e ."},
            ),
        ],
    },
    "sphinx-doc/sphinx": {
        "log_parser": "parse_log_sphinx",
        "versions": [
            (
                _v(
                    "1.5 1.6 1.7 1.8 2.0 2.1 2.2 2.3 2.4 3.0 3.1 3.2 3.3 3.4 3.5 4.0 4.1 4.2 4.3 4.4 4.5 5.0 5.1 5.2 "
                    "5.3 6.0 6.2 7.0 7.1 7.2 7.3 7.4 8.0 8.1"
                ),
                {"test_cmd": SPHINX, "install": "python -m pip install -e .[test]"},
            ),
        ],
    },
    "sqlfluff/sqlfluff": {
        "log_parser": "parse_log_sqlfluff",
        "versions": [
            (
                _v("0.4 0.5 0.6 0.8 0.9 0.10 0.11 0.12 0.13 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2"),
                {"test_cmd": PYTEST, "install": PIP_E},
            ),
        ],
    },
    "sympy/sympy": {
        "log_parser": "parse_log_sympy",
        "versions": [
            (
                _v("0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14"),
                {"test_cmd": SYMPY, "install": PIP_E},
            ),
        ],
    },
}
