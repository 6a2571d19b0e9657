"""The documents the docker provider writes or reads from the engine: container create parameters, the compose
override files of a compose project, and the engine's answers it reads into."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class ContainerParams(TypedDict):
    """The keyword arguments of docker-py's ``APIClient.create_container`` for a task's container."""

    image: str
    command: list[str]
    name: str
    labels: dict[str, str]
    host_config: object  # docker-py's HostConfig, passed through
    detach: bool
    working_dir: str
    environment: dict[str, str]
    platform: NotRequired[str]


class ComposeBuild(TypedDict):
    """A compose service's ``build`` section."""

    context: str
    args: NotRequired[dict[str, str]]


class ComposeVolume(TypedDict):
    """A bind mount of a compose service's ``volumes`` (long syntax)."""

    type: str
    source: str
    target: str
    read_only: NotRequired[bool]


class ComposeService(TypedDict, total=False):
    """The keys of a compose service the override files set (the Compose Specification's ``services.<name>``)."""

    command: list[str]
    working_dir: str
    image: str
    build: ComposeBuild
    cpus: float
    mem_limit: str
    memswap_limit: str
    environment: dict[str, str]
    volumes: list[ComposeVolume]
    labels: dict[str, str]


class ComposeNetwork(TypedDict):
    """A compose network's section (``networks.<name>``) as the labels file sets it."""

    labels: dict[str, str]
    internal: NotRequired[bool]


class ComposeFile(TypedDict, total=False):
    """A compose override file of the project (``docker compose -f``), written as JSON."""

    services: dict[str, ComposeService]
    networks: dict[str, ComposeNetwork]


class ContainerSummary(TypedDict):
    """The keys read from an entry of the engine's container list (``GET /containers/json``)."""

    Id: str
    Image: NotRequired[str]


class TopAnswer(TypedDict, total=False):
    """The engine's ``docker top`` answer (``GET /containers/{id}/top``): column titles and the process rows."""

    Titles: list[str]
    Processes: list[list[str]]
