"""``agentcompass run ... -m key=a,b``: a Hydra multirun sweep through the agentcompass launcher."""

from __future__ import annotations

from typing import Any


def run_sweep(kwargs: dict[str, Any]) -> int:
    import asyncio

    from agentcompass._config.compose import ComposeInput
    from agentcompass._launch import async_launch
    from agentcompass._launch.run import Orchestration
    from agentcompass._launch.sweep import SweepHandle, decode_job, encode_sweep, run_sweep as hydra_sweep
    from agentcompass._sdk import _as_paths, build_explicit, check_supported

    from .launch import report

    base = ComposeInput(choices={g: kwargs.get(g) for g in ("benchmark", "harness", "model", "environment")},
                        config_paths=_as_paths(kwargs.get("config_path")), overrides=[],
                        explicit=build_explicit(kwargs))
    encoded, keys = encode_sweep(list(kwargs.get("overrides") or ()))
    handle = SweepHandle(to_job=lambda overrides: decode_job(base, keys, overrides), check=check_supported)
    jobs = hydra_sweep(handle, encoded)
    concurrency = next((j.resolved.config.runtime.task_concurrency for j in jobs if j.resolved), 1)
    result = asyncio.run(async_launch(Orchestration("sweep", concurrency, jobs)))
    return report(result)
