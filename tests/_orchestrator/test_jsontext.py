"""``_orchestrator.record.jsontext.dumps``: the same value as ``json.dumps`` (every JSON type, non-string keys, values
``default`` converts, non-finite floats, non-ASCII text), laid out one entry per line down to ``depth``."""

from __future__ import annotations

import enum
import json
from pathlib import Path

from agentcompass._orchestrator.record.jsontext import dumps


class Colour(enum.StrEnum):
    RED = "red"


VALUE = {
    "metadata": {"run_id": "r-1", "path": Path("/tmp/x"), "status": Colour.RED, "nested": {"a": [1, 2.5, None]}},
    "metrics": {"n": 3, "rate": 0.5, "ok": True, "bad": False, "none": None, "inf": float("inf"), 1: "int key"},
    "summary": {"tasks": [{"task_id": f"t-{i}", "reward": i / 3, "text": 'é \u2028 "q"'} for i in range(4)]},
    "empty": {"d": {}, "l": [], "s": ""},
    "tuple": (1, "two"),
    True: "bool key",
    None: "none key",
    2.5: "float key",
}


def test_same_value_as_json_dumps():
    for depth in range(5):
        for ascii_only in (True, False):
            text = dumps(VALUE, depth=depth, ensure_ascii=ascii_only)
            assert json.loads(text) == json.loads(json.dumps(VALUE, default=str, ensure_ascii=ascii_only))
    assert json.loads(dumps([], depth=3)) == [] and json.loads(dumps("x", depth=3)) == "x"


def test_layout_one_entry_per_line_down_to_depth():
    lines = dumps(VALUE, depth=3).splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '  "metadata": {' in lines and '    "run_id": "r-1",' in lines
    rows = [line for line in lines if line.startswith('      {"task_id": ')]
    assert len(rows) == 4  # each task row on its own line, compact
    assert json.loads(rows[0].rstrip(",")) == {"task_id": "t-0", "reward": 0.0, "text": 'é \u2028 "q"'}
    assert dumps({"a": {"b": 1}}, depth=1) == '{\n  "a": {"b": 1}\n}'
