"""What a compose project leaves on the engine, and its removal through the Docker API (no Compose needed).

Every container of a project started by agentcompass, and its default network, carry the run's labels plus
``agentcompass.compose_project``; Compose itself labels containers, networks, volumes and the images it built
with ``com.docker.compose.project``. :func:`cleanup_projects` finds the projects of killed runs by the first and
:func:`remove_project` removes everything carrying the second, plus the project's files on the host.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("agentcompass.environments.docker")
PROJECT_LABEL = "agentcompass.compose_project"
COMPOSE_PROJECT = "com.docker.compose.project"


def compose_root() -> Path:
    """Where per-project override files and log directories live (``<tmp>/agentcompass-compose``)."""
    return Path(tempfile.gettempdir()) / "agentcompass-compose"


async def remove_project(provider: Any, name: str) -> None:
    """Remove every container, network, volume and image labelled with compose project ``name``."""
    import docker.errors

    api, label = provider.api, {"label": [f"{COMPOSE_PROJECT}={name}"]}
    for c in await provider.run(api.containers, all=True, filters=label):
        await provider.remove_container(c["Id"])
    for what, lister, remover in (
        ("network", api.networks, api.remove_network),
        ("volume", lambda filters: (api.volumes(filters=filters) or {}).get("Volumes") or [], api.remove_volume),
        ("image", api.images, lambda ref: api.remove_image(ref, force=True)),
    ):
        for item in await provider.run(lister, filters=label):
            try:
                await provider.run(remover, item.get("Id") or item.get("Name"))
            except docker.errors.APIError as exc:
                log.warning("docker: removing %s of project %s failed: %s", what, name, exc)
    shutil.rmtree(compose_root() / name, ignore_errors=True)


async def cleanup_projects(provider: Any, run_id: str | None, is_leftover: Any) -> int:
    """Remove the compose projects left by killed runs (of ``run_id``, else all); ``is_leftover(labels)`` tells
    a leftover from a live or kept one. Returns how many projects were removed."""
    api = provider.api
    wanted = ["agentcompass=1", PROJECT_LABEL] + ([f"agentcompass.run_id={run_id}"] if run_id is not None else [])
    labelled = [c.get("Labels") or {} for c in await provider.run(api.containers, all=True, filters={"label": wanted})]
    labelled += [n.get("Labels") or {} for n in await provider.run(api.networks, filters={"label": wanted})]
    projects: dict[str, bool] = {}
    for labels in labelled:
        name = labels[PROJECT_LABEL]
        projects[name] = projects.get(name, True) and is_leftover(labels)
    doomed = sorted(name for name, leftover in projects.items() if leftover and name not in provider.open_projects())
    for name in doomed:
        await remove_project(provider, name)
    return len(doomed)
