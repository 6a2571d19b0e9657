import sys
from pathlib import Path

import pytest


def test_todo_first_line():
    assert Path("/app/notes/todo.txt").read_text().splitlines()[0] == "buy milk"


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="skipped on Linux: counts as passed")
def test_skipped_counts_as_pass():
    raise AssertionError("not run")


@pytest.mark.xfail(reason="expected failure: counts as passed")
def test_xfail_counts_as_pass():
    assert Path("/app/notes/missing.txt").exists()
