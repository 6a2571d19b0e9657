"""A thin Hydra launcher: composes every job of a sweep, then hands them ALL to one agentcompass orchestration.

Unlike Hydra's basic launcher it never calls Hydra's per-job runner (which changes the working directory and
process-wide state): each job's overrides are composed into an agentcompass request, and the whole batch is
submitted at once, so a single attempt pool (``task_concurrency``) serves the whole sweep, retries included.
A job that cannot be composed is returned as a completed Hydra job whose value carries the error; it never
raises through the sweep. The heavy part lives in ``agentcompass._launch.sweep``.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.plugins.launcher import Launcher


@dataclass
class AgentcompassLauncherConf:
    _target_: str = "hydra_plugins.agentcompass_launcher.agentcompass_launcher.AgentcompassLauncher"
    # key of the in-process sweep handle that receives the composed jobs (set by agentcompass itself)
    token: str = ""


ConfigStore.instance().store(
    group="hydra/launcher", name="agentcompass", node=AgentcompassLauncherConf, provider="agentcompass"
)


class AgentcompassLauncher(Launcher):
    def __init__(self, token: str = "") -> None:
        self.token = token
        self.config: Any = None
        self.hydra_context: Any = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        self.hydra_context, self.config = hydra_context, config

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        from agentcompass._launch import sweep

        return sweep.launch_jobs(self, job_overrides, initial_job_idx)
