"""Multi-container tasks: an ``EnvSpec.compose_file`` runs as a Docker Compose project (the contract of Harbor's
docker environment).

- The project is the task's compose file plus overrides written per attempt, in this order (later files win):
  ``resources`` (``cpus`` / ``mem_limit`` of the ``main`` service), ``base`` (``main`` built from the task's
  ``environment/`` directory, or the prebuilt ``docker_image``, running ``sleep infinity``), the task's file,
  ``environment`` (the task's env on ``main``), ``mounts`` (``/logs/agent``, ``/logs/verifier``,
  ``/logs/artifacts`` of ``main`` bound to host directories), ``labels`` (the agentcompass labels of the run on
  every service and on the default network) and, for a task without network, ``network`` (the default network
  made ``internal``: services reach each other, nothing else).
- Compose interpolates with the variables Harbor sets: ``MAIN_IMAGE_NAME``, ``CONTEXT_DIR``,
  ``PREBUILT_IMAGE_NAME``, ``CPUS``, ``MEMORY`` (``<mb>M``), ``DOCKER_CONFIG``, ``HOST_/ENV_{AGENT_LOGS,
  VERIFIER_LOGS,ARTIFACTS}_PATH``, plus the task's env and this process's environment without secrets.
- ``main`` is the agent's environment: commands and files go through the Docker API on its container (as in
  :class:`DockerEnvironment`); the other services start first (``up --wait``) on the project network.
- Project names are ``ac_<run id>_<task>_<random>``: per attempt, so parallel attempts never collide. Closing
  runs ``down --volumes --remove-orphans --rmi local``; :mod:`.compose_cleanup` removes what a killed run left
  (containers, networks, volumes, images of the project) through the Docker API.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from agentcompass.environments.docker.compose_cleanup import (
    COMPOSE_PROJECT,
    PROJECT_LABEL,
    compose_root,
    remove_project,
)
from agentcompass.environments.docker.compose_cli import Completed, require_compose, run_compose
from agentcompass.environments.docker.config import DEFAULT_BUILD_TIMEOUT_S
from agentcompass.environments.docker.environment import DockerEnvironment
from agentcompass.environments.docker.images import context_hash, repo_component, uses_base_image
from agentcompass.environments.docker.shapes import (
    ComposeFile,
    ComposeNetwork,
    ComposeService,
    ComposeVolume,
    ContainerSummary,
)
from agentcompass.errors import DatasetError, ImageError, SandboxError
from agentcompass.interfaces import EnvSpec
from agentcompass.kit import slug

log = logging.getLogger("agentcompass.environments.docker")
MAIN = "main"
KEEP_ALIVE = ["sh", "-c", "sleep infinity"]
LOG_MOUNTS = (
    ("agent", "/logs/agent", "AGENT_LOGS"),
    ("verifier", "/logs/verifier", "VERIFIER_LOGS"),
    ("artifacts", "/logs/artifacts", "ARTIFACTS"),
)
_SECRET = re.compile(r".*(_API_KEY|_TOKEN)$|.*(SECRET|PASSWORD).*|^AWS_SESSION_.*", re.IGNORECASE)
DOWN_TIMEOUT_S = 180.0


def project_name(run_id: str, task_id: str) -> str:
    """``ac_<run id>_<task>_<8 hex>``: lowercase letters, digits, '-' and '_' (Compose's rule)."""
    name = functools.partial(slug, keep="a-z0-9", lower=True, strip="-")
    return f"ac_{name(run_id or 'norun', limit=60)}_{name(task_id, limit=30)}_{uuid.uuid4().hex[:8]}"


class ComposeProject:
    """The files, variables and name of one attempt's compose project; runs compose commands on it."""

    def __init__(self, command: list[str], name: str, spec: EnvSpec, directory: Path) -> None:
        self.command, self.name, self.spec, self.dir = command, name, spec, directory
        self.files: list[Path] = []
        self.env: dict[str, str] = {}
        self.project_dir = Path(spec.compose_file).resolve().parent if spec.compose_file else directory

    def write(self, name: str, data: ComposeFile) -> Path:
        path = self.dir / f"{name}.json"
        path.write_text(json.dumps(data, indent=1), encoding="utf-8")
        return path

    async def run(self, *args: str, timeout: float | None, what: str, error: type = SandboxError) -> Completed:
        argv = [*self.command, "--project-name", self.name, "--project-directory", str(self.project_dir)]
        for path in self.files:
            argv += ["-f", str(path)]
        try:
            res = await run_compose([*argv, *args], env=self.env, cwd=self.project_dir, timeout=timeout)
        except TimeoutError:
            raise error(
                f"task {self.spec.task_id}: docker compose {what} took over {timeout:.0f}s (project {self.name})"
            ) from None
        if res.returncode != 0:
            raise error(
                f"task {self.spec.task_id}: docker compose {what} failed (exit {res.returncode}, project "
                f"{self.name}): {res.tail()}"
            )
        return res

    async def down(self) -> None:
        """Remove the project (containers, networks, volumes, images built for it) and its files."""
        try:
            await self.run(
                "down",
                "--volumes",
                "--remove-orphans",
                "--rmi",
                "local",
                "--timeout",
                "0",
                timeout=DOWN_TIMEOUT_S,
                what="down",
            )
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------- the files and variables


def _resources(cfg: Any, spec: EnvSpec) -> ComposeFile:
    main: ComposeService = {}
    cpus, memory = cfg.cpus or spec.cpus, cfg.memory_mb or spec.memory_mb
    if cpus:
        main["cpus"] = float(cpus)
    if memory:
        main["mem_limit"] = f"{memory}m"
        main["memswap_limit"] = f"{memory}m"
    return {"services": {MAIN: main}}


def _base(spec: EnvSpec, prebuilt: str | None, workdir: str, build_args: dict[str, str]) -> ComposeFile:
    main: ComposeService = {"command": KEEP_ALIVE, "working_dir": workdir}
    if prebuilt:
        main["image"] = prebuilt
    elif spec.dockerfile_dir:  # else the task's compose file says how main is made
        main["build"] = {"context": str(Path(spec.dockerfile_dir).resolve())}
        if build_args:
            main["build"]["args"] = dict(build_args)
    return {"services": {MAIN: main}}


async def _build_args(provider: Any, spec: EnvSpec) -> dict[str, str]:
    """The main service's build arguments, its ``BASE_IMAGE`` resolved as for single-container tasks (the
    offline fallback where the default base can be neither found nor pulled)."""
    args = {str(k): str(v) for k, v in spec.build_args.items()}
    dockerfile = Path(spec.dockerfile_dir) / "Dockerfile" if spec.dockerfile_dir else None
    if "BASE_IMAGE" in args and dockerfile is not None and uses_base_image(dockerfile):
        args["BASE_IMAGE"] = await provider.images.base(args["BASE_IMAGE"], provider.config.pull_policy)
    return args


def _log_dirs(directory: Path) -> dict[str, tuple[Path, str]]:
    dirs = {}
    for name, target, var in LOG_MOUNTS:
        host = directory / "logs" / name
        host.mkdir(parents=True, exist_ok=True)
        host.chmod(0o777)  # writable by a task that runs as another user
        dirs[var] = (host, target)
    return dirs


def _variables(
    cfg: Any, spec: EnvSpec, main_image: str, prebuilt: str | None, logs: dict[str, tuple[Path, str]]
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _SECRET.match(k)}
    env.update({str(k): str(v) for k, v in spec.env.items()})
    cpus, memory = cfg.cpus or spec.cpus, cfg.memory_mb or spec.memory_mb
    context = Path(spec.dockerfile_dir or Path(spec.compose_file).parent).resolve()
    infra = {
        "MAIN_IMAGE_NAME": main_image,
        "CONTEXT_DIR": str(context),
        "DOCKER_CONFIG": str(Path(os.environ.get("DOCKER_CONFIG") or Path.home() / ".docker").absolute()),
    }
    if prebuilt:
        infra["PREBUILT_IMAGE_NAME"] = prebuilt
    if cpus:
        infra["CPUS"] = str(cpus)
    if memory:
        infra["MEMORY"] = f"{memory}M"
    for var, (host, target) in logs.items():
        infra.update({f"ENV_{var}_PATH": target, f"HOST_{var}_PATH": str(host)})
    return {**env, **infra}


def _labels(services: list[str], labels: dict[str, str], internal: bool) -> ComposeFile:
    default: ComposeNetwork = {"labels": dict(labels)}
    if internal:
        default["internal"] = True
    return {"services": {s: {"labels": dict(labels)} for s in services}, "networks": {"default": default}}


async def _write_files(project: ComposeProject, provider: Any, prebuilt: str | None) -> None:
    """Every file and variable of the project (module docstring); the task's file must be valid compose."""
    cfg, spec = provider.config, project.spec
    logs = _log_dirs(project.dir)
    context = Path(spec.dockerfile_dir or Path(spec.compose_file).parent)
    build_args = await _build_args(provider, spec)
    digest = await provider.run(context_hash, context, build_args)
    main_image = f"agentcompass/{repo_component(spec.benchmark or 'local')}/{repo_component(spec.task_id)}:{digest}"
    project.env = _variables(cfg, spec, main_image, prebuilt, logs)
    main_env = {**{str(k): str(v) for k, v in spec.env.items()}, **cfg.env}
    mounts: list[ComposeVolume] = [
        {"type": "bind", "source": str(host), "target": target} for host, target in logs.values()
    ]
    mounts += [
        {"type": "bind", "source": str(m.source), "target": m.target, "read_only": m.read_only} for m in spec.mounts
    ]
    base = _base(spec, prebuilt, cfg.workdir or spec.workdir, build_args)
    project.files = [
        project.write("resources", _resources(cfg, spec)),
        project.write("base", base),
        Path(spec.compose_file).resolve(),
        project.write("environment", {"services": {MAIN: {"environment": main_env}}}),
        project.write("mounts", {"services": {MAIN: {"volumes": mounts}}}),
    ]
    listed = await project.run("config", "--services", timeout=120, what="config", error=DatasetError)
    services = listed.stdout.split()
    labels = {**provider.labels_for(spec), PROJECT_LABEL: project.name}
    internal = (cfg.network or spec.network) == "none"
    project.files.append(project.write("labels", _labels(services, labels, internal)))


# --------------------------------------------------------------------------- open, close, cleanup


class ComposeEnvironment(DockerEnvironment):
    """The ``main`` container of a compose project; closing takes the whole project down."""

    def __init__(self, provider: Any, container_id: str, project: ComposeProject, image: str, workdir: str) -> None:
        super().__init__(
            provider,
            container_id,
            f"{project.name}-{MAIN}",
            image,
            workdir,
            project.spec.keep,
            provider.config.exec_output_limit,
        )
        self.project = project

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "compose_project": self.project.name}

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.provider.forget(self)
        if self.keep:
            log.info("keeping compose project %s", self.project.name)
            return
        try:
            await self.project.down()
        except SandboxError as exc:  # compose failed: remove what carries the project's label
            log.warning("%s; removing its resources through the Docker API", exc)
            await remove_project(self.provider, self.project.name)


async def _prebuilt(provider: Any, spec: EnvSpec) -> str | None:
    """The task's docker_image when it is present or can be pulled; None to build ``main`` instead."""
    if not spec.image:
        return None
    images = provider.images
    if provider.config.pull_policy != "always" and await images.exists(spec.image):
        return spec.image
    why = None if provider.config.pull_policy == "never" else await images.pull(spec.image)
    if provider.config.pull_policy != "never" and why is None:
        return spec.image
    if not spec.dockerfile_dir:
        raise ImageError(f"image {spec.image}: cannot be used: " + (why or "not present and pull_policy is 'never'"))
    return None


async def _main_container(provider: Any, project: ComposeProject) -> ContainerSummary:
    found = await provider.run(
        provider.api.containers,
        filters={"label": [f"{COMPOSE_PROJECT}={project.name}", f"com.docker.compose.service={MAIN}"]},
    )
    if not found:
        raise SandboxError(f"task {project.spec.task_id}: compose project {project.name} has no {MAIN} container")
    return found[0]


async def open_compose(provider: Any, spec: EnvSpec) -> ComposeEnvironment:
    """Start the compose project of ``spec`` and return its ``main`` container as the environment."""
    auto = bool(provider.ctx is not None and provider.ctx.auto_install_dependencies)
    command = await asyncio.to_thread(require_compose, spec.task_id, auto)
    name = project_name(provider.run_id(spec), spec.task_id)
    directory = compose_root() / name
    directory.mkdir(parents=True, exist_ok=True)
    project = ComposeProject(command, name, spec, directory)
    cfg = provider.config
    try:
        prebuilt = await _prebuilt(provider, spec)
        await _write_files(project, provider, prebuilt)
        async with provider.compose_lock(project.project_dir):  # main and every service with a build
            await project.run(
                "build",
                timeout=cfg.build_timeout_s or spec.build_timeout_s or DEFAULT_BUILD_TIMEOUT_S,
                what="build",
                error=ImageError,
            )
        await project.run("up", "--detach", "--wait", "--no-build", timeout=cfg.open_timeout_s, what="up")
        main = await _main_container(provider, project)
    except BaseException:
        await asyncio.shield(_discard(provider, project))
        raise
    info = await provider.run(provider.api.inspect_container, main["Id"])
    workdir = cfg.workdir or (info.get("Config") or {}).get("WorkingDir") or spec.workdir
    env = ComposeEnvironment(provider, main["Id"], project, main.get("Image", ""), workdir)
    memory = (info.get("HostConfig") or {}).get("Memory") or 0
    env.memory_mb = int(memory) // (1 << 20) or None  # what the kernel kills at (main's limit)
    provider.remember(env)
    log.debug("opened compose project %s for %s", name, spec.task_id)
    return env


async def _discard(provider: Any, project: ComposeProject) -> None:
    try:
        await project.down()
    except Exception as exc:
        log.debug("compose down of %s failed: %s", project.name, exc)
        await remove_project(provider, project.name)
