"""Docker Compose test support: what a compose project of this test session left on the engine, and its removal.

Compose projects started by the tests carry the session's ``agentcompass.test.session`` label on every container
and on their default network (the docker provider's ``labels`` option), so teardown finds them by label and
removes only this session's projects.
"""

from __future__ import annotations

from agentcompass.environments.docker.compose import COMPOSE_PROJECT, PROJECT_LABEL, compose_root
from tests.environments.docker_support import SESSION, api


def session_projects() -> set[str]:
    """Names of this session's compose projects that still have a container or a network."""
    client, label = api(), {"label": [f"agentcompass.test.session={SESSION}", PROJECT_LABEL]}
    found = [c["Labels"] for c in client.containers(all=True, filters=label)]
    found += [n["Labels"] for n in client.networks(filters=label)]
    return {labels[PROJECT_LABEL] for labels in found}


def project_resources(name: str) -> dict[str, list[str]]:
    """Everything the engine holds for compose project ``name``, and its files on the host."""
    client, label = api(), {"label": [f"{COMPOSE_PROJECT}={name}"]}
    return {
        "containers": [c["Names"][0] for c in client.containers(all=True, filters=label)],
        "networks": [n["Name"] for n in client.networks(filters=label)],
        "volumes": [v["Name"] for v in (client.volumes(filters=label) or {}).get("Volumes") or []],
        "images": [i["Id"] for i in client.images(filters=label)],
        "files": [str(compose_root() / name)] if (compose_root() / name).exists() else [],
    }


def nothing_left(name: str) -> bool:
    return not any(project_resources(name).values())


def remove_session_projects() -> None:
    import shutil

    client = api()
    for name in session_projects():
        label = {"label": [f"{COMPOSE_PROJECT}={name}"]}
        for c in client.containers(all=True, filters=label):
            client.remove_container(c["Id"], v=True, force=True)
        for n in client.networks(filters=label):
            client.remove_network(n["Id"])
        for v in (client.volumes(filters=label) or {}).get("Volumes") or []:
            client.remove_volume(v["Name"], force=True)
        for i in client.images(filters=label):
            client.remove_image(i["Id"], force=True)
        shutil.rmtree(compose_root() / name, ignore_errors=True)
