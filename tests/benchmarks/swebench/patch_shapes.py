"""Test patches of every shape ``git diff`` writes, made with real git in a scratch repository.

Each shape is a change to the working tree of a small repository; ``make_shapes(root)`` returns
``{name: (base_commit, diff text)}``. Used by the eval-script agreement test (the file list the official
script resets, the test directives) and by the patch-set parser tests.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.benchmarks.swebench.fixture import GIT_ENV

FILES = {
    "tests/test_a.py": "def test_a():\n    assert True\n",
    "tests/test_b.py": "def test_b():\n    assert 1\n",
    "tests/data/fixture.json": '{"a": 1}\n',
    "tests/forms_tests/tests/test_forms.py": "def test_form():\n    pass\n",
    "tests/old_name.py": "def test_old():\n    pass\n" * 5,
    "tests/img.png": "\x89PNG\x00\x01\x02",
    "tests/run.sh": "echo hi\n",
    "tests/my test.py": "def test_space():\n    pass\n",
    "tests/t\u00e9st.py": "def test_e():\n    pass\n",
    "tests/dashes.py": "-- a/comment\nx = 1\n",
    "client/state/test/index.js": "test('a', () => {});\n",
    "client/blocks/__snapshots__/index.js.snap": "exports[`a`] = `x`;\n",
    "test/e2e/specs/login.js": "it('logs in', () => {});\n",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True).stdout.decode()


def _write(repo: Path, rel: str, text: str) -> None:
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_bytes(text.encode("latin-1") if rel.endswith(".png") else text.encode())


def _append(rel: str, text: str) -> Callable[[Path], None]:
    return lambda repo: _write(repo, rel, (repo / rel).read_text() + text)


def _steps(*fns: Callable[[Path], None]) -> Callable[[Path], None]:
    def run(repo: Path) -> None:
        for fn in fns:
            fn(repo)

    return run


SHAPES: dict[str, Callable[[Path], None]] = {
    "modify": _append("tests/test_a.py", "\n\ndef test_a2():\n    assert False\n"),
    "modify_two_and_data": _steps(
        _append("tests/test_a.py", "# more\n"),
        _append("tests/test_b.py", "# b\n"),
        lambda r: _write(r, "tests/data/fixture.json", '{"a": 2}\n'),
    ),
    "new_only": lambda r: _write(r, "tests/test_new.py", "def test_new():\n    pass\n"),
    "modify_and_new": _steps(
        _append("tests/test_a.py", "# x\n"), lambda r: _write(r, "tests/test_new.py", "def test_new():\n    pass\n")
    ),
    "delete": lambda r: (r / "tests/test_b.py").unlink(),
    "rename_edit": _steps(
        lambda r: (r / "tests/old_name.py").rename(r / "tests/new_name.py"), _append("tests/new_name.py", "# renamed\n")
    ),
    "rename_pure": lambda r: (r / "tests/old_name.py").rename(r / "tests/moved.py"),
    "binary": lambda r: _write(r, "tests/img.png", "\x89PNG\x00\x03\x04\x05"),
    "mode_only": lambda r: (r / "tests/run.sh").chmod(0o755),
    "space_in_name": _append("tests/my test.py", "# s\n"),
    "quoted_name": _append("tests/t\u00e9st.py", "# e\n"),
    "django_nested": _append("tests/forms_tests/tests/test_forms.py", "# f\n"),
    "dash_lines": lambda r: _write(r, "tests/dashes.py", "x = 1\n-- a/other\n"),
    "js_layout": _steps(  # the folders wp-calypso's test commands are derived from
        _append("client/state/test/index.js", "// x\n"),
        _append("client/blocks/__snapshots__/index.js.snap", "// s\n"),
        lambda r: _write(r, "packages/data/test/new.js", "test('n', () => {});\n"),
        _append("test/e2e/specs/login.js", "// e\n"),
    ),
}


def make_shapes(root: Path) -> dict[str, tuple[str, str]]:
    """{shape: (base commit, test patch)} from a fresh scratch repository under ``root``."""
    repo = root / "shapes"
    repo.mkdir(parents=True)
    for rel, text in FILES.items():
        _write(repo, rel, text)
    (repo / "tests/run.sh").chmod(0o644)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD").strip()
    out = {}
    for name, change in SHAPES.items():
        change(repo)
        _git(repo, "add", "-A")
        out[name] = (base, _git(repo, "diff", "--cached", "-M", base))
        _git(repo, "reset", "-q", "--hard", base)
    return out
