"""The ``agentcompass`` Hydra sweeper (``hydra/sweeper=agentcompass``): expands ``key=a,b`` sweeps into jobs and
hands them to the launcher as ONE batch, writing nothing.

Hydra's basic sweeper composes every job once more to validate it (about 80 ms of CPU each) and saves
``multirun.yaml`` into a sweep directory; agentcompass composes and validates each job itself, so this sweeper
only expands the overrides (Hydra's public override parser, the cartesian product in the order given) and calls
the launcher. Range sweeps (``range(1,4)``) expand as Hydra's do; an interval sweep has no discrete values and
is an error.
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.plugins.sweeper import Sweeper


@dataclass
class AgentcompassSweeperConf:
    _target_: str = "hydra_plugins.agentcompass_launcher.agentcompass_sweeper.AgentcompassSweeper"


ConfigStore.instance().store(
    group="hydra/sweeper", name="agentcompass", node=AgentcompassSweeperConf, provider="agentcompass"
)


def expand(overrides: Sequence[Any]) -> list[list[str]]:
    """Parsed overrides -> the override lists of every job (the cartesian product of the sweeps)."""
    choices = []
    for override in overrides:
        key = override.get_key_element()
        if override.is_interval_sweep():
            raise ValueError(f"{override.input_line}: an interval sweep has no discrete values to run")
        if override.is_sweep_override():
            choices.append([f"{key}={value}" for value in override.sweep_string_iterator()])
        else:
            choices.append([f"{key}={override.get_value_element_as_str()}"])
    return [list(job) for job in itertools.product(*choices)]


class AgentcompassSweeper(Sweeper):
    def __init__(self) -> None:
        self.config: Any = None
        self.launcher: Any = None
        self.hydra_context: Any = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        from hydra.core.plugins import Plugins

        self.hydra_context, self.config = hydra_context, config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )

    def sweep(self, arguments: list[str]) -> Any:
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        batch = expand(parser.parse_overrides(arguments))
        return [self.launcher.launch(batch, initial_job_idx=0)]
