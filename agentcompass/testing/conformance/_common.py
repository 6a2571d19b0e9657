"""What the suites share: one event loop per test class (so a class can reuse one environment or client across
its tests), and the check of declared capabilities."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from typing import Any

import pytest

DEFAULT_TIMEOUT_S = 120.0


class Loop:
    """An :class:`asyncio.Runner` whose loop lives as long as the test class."""

    def __init__(self, runner: asyncio.Runner) -> None:
        self.runner = runner

    def run(self, coro: Awaitable[Any], timeout: float = DEFAULT_TIMEOUT_S) -> Any:
        """Run ``coro`` to completion on the class's loop, bounded by ``timeout`` seconds."""
        return self.runner.run(asyncio.wait_for(coro, timeout))


class AsyncClass:
    """Base of the suites: the class-scoped ``aio`` fixture."""

    @pytest.fixture(scope="class")
    @classmethod
    def aio(cls) -> Iterator[Loop]:
        with asyncio.Runner() as runner:
            yield Loop(runner)


def check_capabilities(component: Any, kind: str) -> None:
    """Every optional capability of ``kind`` that the component has is of its declared form."""
    from agentcompass.interfaces import CAPABILITIES

    problems = [p for p in (c.problem(component) for c in CAPABILITIES if c.kind == kind) if p]
    assert not problems, "; ".join(problems)


def conf_of(group: str, component_id: str) -> dict[str, Any]:
    """The config of ``conf/<group>/<component_id>.yaml``, a base named by its defaults list merged under it."""
    import yaml

    from agentcompass._config import check_id, component_file

    check_id(group, component_id)
    data = yaml.safe_load(component_file(group, component_id).read_text(encoding="utf-8")) or {}
    bases = [d for d in data.pop("defaults", []) if isinstance(d, str) and d != "_self_"]
    return {**(conf_of(group, bases[0]) if bases else {}), **data}


def build_from_conf(group: str, component_id: str, data_dir: Any, **params: Any) -> Any:
    """The component of ``conf/<group>/<component_id>.yaml`` with ``params`` over it, built by the registry as
    a request builds it (``cls(config, ctx)``)."""
    from pathlib import Path

    from agentcompass._config import build
    from agentcompass.interfaces import ComponentContext

    ids: dict[str, Any] = {f"{group}_id": component_id}
    ctx = ComponentContext(data_dir=Path(data_dir), **ids)
    return build(group, {**conf_of(group, component_id), **params}, ctx)
