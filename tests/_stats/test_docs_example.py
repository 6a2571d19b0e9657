"""The worked SWE-bench-sized example of docs/statistics.md, recomputed: the page's figures stay true."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agentcompass._stats import paired, power
from agentcompass._stats.intervals import wilson

DOC = (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text(encoding="utf-8")


def test_the_one_sample_example():
    a = [1.0] * 50 + [0.0] * 60 + [1.0] * 190 + [0.0] * 200  # 50 only A, 60 only B, 190 both, 200 neither
    b = [0.0] * 50 + [1.0] * 60 + [1.0] * 190 + [0.0] * 200
    r = paired.compare_pair(a, b, binary=True)
    shown = {
        "[0.437, 0.524]": "[{:.3f}, {:.3f}]".format(*wilson(240, 500)),
        "[0.456, 0.544]": "[{:.3f}, {:.3f}]".format(*wilson(250, 500)),
        "[-0.0212, 0.0612]": f"[{r['ci']['low']:.4f}, {r['ci']['high']:.4f}]",
        "se 0.0210": f"se {r['ci']['se']:.4f}",
        "[-0.0200, 0.0620]": f"[{r['bootstrap']['low']:.4f}, {r['bootstrap']['high']:.4f}]",
        "p = 0.391": f"p = {r['test']['p_value']:.3f}",
        "0.469": f"{r['sd_diff']:.3f}",
        "detects 0.0589": f"detects {power.mde(500, r['sd_diff']):.4f}",
        "need 4,320 tasks": f"need {power.tasks_needed(0.02, r['sd_diff']):,} tasks",
    }
    for text, computed in shown.items():
        assert text == computed and text in DOC, (text, computed)
    independent = math.sqrt(0.48 * 0.52 / 500 + 0.5 * 0.5 / 500)
    assert f"against {independent:.4f}" in DOC


def test_the_five_sample_example():
    n, var_d, within = 500, 0.08, 0.20
    between = var_d - within / 5
    assert between == pytest.approx(0.04)
    assert f"500 tasks detect {power.mde(n, math.sqrt(var_d)):.4f}" in DOC
    assert f"{power.samples_needed(0.03, n, between, within)} samples per task would do" in DOC
    assert power.samples_needed(0.02, n, between, within) is None
    assert f"limits these 500 tasks to {power.mde(n, math.sqrt(between)):.4f}" in DOC
    assert f"needs {power.tasks_needed(0.02, math.sqrt(var_d)):,} tasks at k = 5" in DOC
