"""What every plug-in is: a :class:`Component` built from its config and a :class:`ComponentContext`."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

# --------------------------------------------------------------------------- shared context


@dataclass
class ComponentContext:
    """What every component receives when it is built (once per request)."""

    data_dir: Path
    run_id: str = ""
    request: str = ""
    benchmark_id: str = ""
    model_id: str = ""  # the request's model name ("none" without a model)
    harness_id: str = ""
    environment_id: str = ""  # the request's environment id ("docker", "local"...)
    auto_install_dependencies: bool = False
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("agentcompass"))
    # for a model client: whether the request's harness needs a model (``requires_model``); when False (oracle,
    # nop), what only a call needs (an API key) is checked at the first call, not when the client is built
    model_required: bool = True


@runtime_checkable
class Component(Protocol):
    """What every plug-in class is: a benchmark, a harness, an environment provider or a model client.

    - ``config_class``: a pydantic model (``extra="forbid"``, every field defaulted and described). The composed
      config of the component's group, without ``_target_`` (and without ``id``, except for models), is validated
      into it; an unknown key or a bad value is a :class:`~agentcompass.errors.ConfigError` naming the key.
    - ``cls(config, ctx)``: built once per request with the validated config and a :class:`ComponentContext`.
    - ``id``: the id it was selected by (its file name in ``conf/<group>/``), set by the registry after
      construction; a model client has ``model_id`` (the name sent to the endpoint) instead.
    """

    id: str
    config_class: ClassVar[type[Any]]

    def __init__(self, config: Any, ctx: ComponentContext) -> None:
        """Raises: ConfigError for values that are valid one by one but not together (or not with ``ctx``),
        DependencyError for a missing optional extra."""
        ...
