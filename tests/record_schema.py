"""A pytest plug-in: every ``result.json``, ``results.jsonl`` row and ``summary.json`` the package writes during the
test session is checked against its schema (``agentcompass schema``), as the JSON the file gets.

The check sits on the writes themselves (:class:`RunStore` and :class:`AttemptRecord`), so a test that lays out
an older or a broken file on purpose by hand is not checked, and a file that does not fit fails the test that
wrote it, naming the file and the fields. A test that writes a record not meant to fit through the store marks
itself ``record_schema_exempt``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcompass._orchestrator.record import schema
from agentcompass._orchestrator.record.store import AttemptRecord, RunStore

_problems: list[str] = []
_checked: dict[str, int] = {"result": 0, "row": 0, "summary": 0}


def _check(kind: str, where: Any, value: Any) -> None:
    _checked[kind] += 1
    try:
        schema.validate(kind, json.dumps(value, default=str))
    except Exception as exc:  # a ValidationError, or a value JSON cannot hold
        _problems.append(f"{kind} {where}: {exc}")


def _wrap(cls: type, name: str, kind: str, many: bool = False) -> tuple[type, str, Any]:
    original = getattr(cls, name)

    def checked(self: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        where = getattr(self, "dir", None) or getattr(self, "run_dir", "?")
        for item in value if many else [value]:
            _check(kind, where, item)
        return original(self, value, *args, **kwargs)

    checked.__wrapped__ = original  # type: ignore[attr-defined]
    return cls, name, checked


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "record_schema_exempt: writes records through the store that need not fit")
    for cls, name, fn in (
        _wrap(AttemptRecord, "write_result", "result"),
        _wrap(RunStore, "append_result", "row"),
        _wrap(RunStore, "rewrite_results", "row", many=True),
        _wrap(RunStore, "write_summary", "summary"),
    ):
        setattr(cls, name, fn)


@pytest.fixture(autouse=True)
def _record_fits_schema(request: pytest.FixtureRequest) -> Any:
    _problems.clear()
    yield
    problems = list(_problems)
    _problems.clear()
    if problems and request.node.get_closest_marker("record_schema_exempt") is None:
        shown = "\n".join(p[:2000] for p in problems[:3])
        pytest.fail(f"{len(problems)} record file(s) written do not fit `agentcompass schema`:\n{shown}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if any(_checked.values()):
        counts = ", ".join(f"{n} {kind}" for kind, n in _checked.items())
        terminalreporter.write_line(f"record schema: checked {counts} written")
