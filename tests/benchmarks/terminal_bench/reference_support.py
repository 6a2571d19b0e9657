"""Reference venvs in tests: skip when one is missing, but fail under CI (where scripts/test.sh builds them)."""

from __future__ import annotations

import os

import pytest

from agentcompass.testing.reference import reference_python


def require_reference(name: str) -> None:
    if reference_python(name) is not None:
        return
    message = f"reference venv {name!r} is missing: run scripts/ensure_reference.sh {name}"
    if os.environ.get("CI"):
        pytest.fail(f"CI: {message}", pytrace=False)
    pytest.skip(message)
