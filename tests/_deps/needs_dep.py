"""A synthetic benchmark that needs an optional Python package (``tomli-w``) to load its tasks."""

from __future__ import annotations

from agentcompass._deps import require
from agentcompass.testing.synthetic import SyntheticBenchmark


class NeedsDepBenchmark(SyntheticBenchmark):
    def load(self):
        tomli_w = require("tomli_w", "toml", package="tomli-w", purpose="the test benchmark")
        assert tomli_w.dumps({"ok": True}).strip() == "ok = true"
        return super().load()
