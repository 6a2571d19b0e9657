"""Work on what runs leave behind: environments of killed runs, and the analysis of an existing run directory."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._analysis.shapes import Analysis


def cleanup(environment: str = "docker", run_id: str | None = None) -> int:
    """Remove the environments left behind by killed runs (only ``run_id``'s when given); return how many."""
    from agentcompass._config import build, component_config, default_data_dir
    from agentcompass.interfaces import ComponentContext

    provider = build("environment", component_config("environment", environment), ComponentContext(default_data_dir()))

    async def go() -> int:
        try:
            return int(await provider.cleanup(run_id))
        finally:
            await provider.aclose()

    return asyncio.run(go())


def analyze(
    run_dir: str | Path, analysis_params: dict[str, Any] | None = None, *, log_level: str | None = None
) -> tuple[Analysis, dict[str, str]]:
    """Write ``analysis.json`` / ``analysis.md`` for an existing run directory and record them in its
    ``summary.json``; the judge runs only when ``analysis_params`` names a model. Returns the analysis and the
    paths of the two files (``analysis``, ``analysis_md``)."""
    from agentcompass._analysis import analyze_run, parse_params, update_summary
    from agentcompass._orchestrator.record import RunStore, console_logging

    params = parse_params(analysis_params)
    with console_logging(log_level):
        analysis = asyncio.run(analyze_run(run_dir, params))
    folder = Path(analysis["run"]["run_dir"])
    update_summary(folder, analysis)
    return analysis, RunStore.at(folder).analysis_paths()


EXPORT_FORMATS = ("harbor",)


def export(fmt: str, run_dir: str | Path, out_dir: str | Path) -> Path:
    """Write a run directory in another tool's layout (``harbor``: a Harbor job directory); return where."""
    if fmt not in EXPORT_FORMATS:
        from agentcompass.errors import ConfigError

        raise ConfigError(f"export format {fmt!r} is not one of {', '.join(EXPORT_FORMATS)}")
    from agentcompass._export.harbor import export_harbor

    return Path(export_harbor(run_dir, out_dir))


def build_base_image(tag: str, *, mirror: str, rebuild: bool = False, log_level: str | None = None) -> str:
    """Build the offline base image (Debian bookworm with debootstrap, root file system cached in the data dir)
    and import it into the Docker engine as ``tag``; needs root. Returns the tag."""
    from agentcompass._config import default_data_dir
    from agentcompass._orchestrator.record import console_logging
    from agentcompass.environments.docker.base_image import build_base_image as build
    from agentcompass.environments.docker.provider import DockerProvider

    with console_logging(log_level):
        client = DockerProvider._make_client()
        try:
            return build(client.api, tag, default_data_dir(), mirror=mirror, rebuild=rebuild)
        finally:
            client.close()
