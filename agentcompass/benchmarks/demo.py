"""The bundled ``demo`` benchmark: small Terminal-Bench-format tasks shipped inside the package.

The tasks live in ``agentcompass/benchmarks/demo_tasks/<task-id>/``. Their scripts address paths through
``${AGENTCOMPASS_WORKDIR:-/app}``, ``${AGENTCOMPASS_LOGS_DIR:-/logs}`` and ``${AGENTCOMPASS_TESTS_DIR:-/tests}``,
so the same tasks run in the ``local`` environment and in containers. Input data sits in each task's
``environment/files/``: the Dockerfile COPYs it to ``/app`` and :meth:`setup` uploads it into the workdir
(``workdir_files = "files"``), so environments that do not build Dockerfiles see it too.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.interfaces import ComponentContext

DEMO_TASKS_DIR = Path(__file__).resolve().parent / "demo_tasks"


class DemoConfig(TerminalBenchConfig):
    """The demo benchmark: a Terminal-Bench benchmark whose tasks ship with the package."""

    dataset_path: str | None = Field(None, description="Directory of tasks; default: the bundled demo_tasks/.")
    workdir_files: str | None = Field(
        "files", description="Subdirectory of environment/ uploaded into the workdir by setup."
    )


class DemoBenchmark(TerminalBenchBenchmark):
    """Bundled demo tasks (file creation, script fixing, counting, JSON, partial credit, git)."""

    config_class = DemoConfig

    def __init__(self, config: DemoConfig, ctx: ComponentContext | None = None) -> None:
        super().__init__(config, ctx)
        self.id = "demo"

    def dataset_root(self) -> Path:
        return Path(self.config.dataset_path).expanduser() if self.config.dataset_path else DEMO_TASKS_DIR
