"""The ``docker`` environment provider: images, container start, cleanup of leftovers.

Every blocking Docker SDK call runs in the provider's own thread pool, so the event loop never blocks and
long commands never starve other calls (command output is read from the socket by the event loop itself).
Containers run ``sleep infinity`` under Docker's init process and are removed with SIGKILL, so closing is
instant; the removal itself runs in the background (at most ``MAX_PENDING_REMOVALS`` at once, each bounded by
``REMOVAL_TIMEOUT_S``), off the path of the next attempt, and :meth:`DockerProvider.aclose` awaits every one.
Each carries the labels of its EnvSpec plus ``agentcompass=1`` and ``agentcompass.owner``
(host:pid:start time of this process), so ``cleanup`` can tell leftovers from live environments.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentcompass.environments.docker.config import DEFAULT_BUILD_TIMEOUT_S, DockerConfig
from agentcompass.environments.docker.engine import EngineWatch, engine_name
from agentcompass.environments.docker.environment import DockerEnvironment
from agentcompass.environments.docker.images import BaseFallback, ImageManager
from agentcompass.environments.docker.shapes import ContainerParams
from agentcompass.errors import EngineUnavailableError, SandboxError
from agentcompass.interfaces import ComponentContext, EnvSpec
from agentcompass.kit import slug

log = logging.getLogger("agentcompass.environments.docker")
KEEP_ALIVE = ["sh", "-c", "exec sleep infinity 2>/dev/null || while :; do sleep 86400; done"]
POOL_THREADS = 32
MAX_PENDING_REMOVALS = 8  # a close waits while more removals than this are under way
REMOVAL_TIMEOUT_S = 120.0


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _call_name(fn: Any) -> str:
    """``exec_inspect``: the name of an SDK call, for messages."""
    try:
        return str(fn.__name__).strip("_")
    except AttributeError:
        return "a call"


def owner_label() -> str:
    """``host:pid:start time`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{_start_time(os.getpid())}"


def owner_alive(owner: str) -> bool:
    """True when ``owner`` is another process that still runs on this host."""
    host, _, rest = owner.partition(":")
    pid_text, _, started = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    return bool(started) and _start_time(int(pid_text)) == started


def _leftover(labels: dict[str, str]) -> bool:
    """Labels of a leftover: not kept, and its owner process is gone."""
    return labels.get("agentcompass.keep") != "1" and not owner_alive(labels.get("agentcompass.owner", ""))


class DockerProvider:
    """Opens :class:`DockerEnvironment` containers through the Docker SDK (``docker.from_env()``)."""

    name = "docker"
    config_class = DockerConfig

    def __init__(self, config: DockerConfig | None = None, ctx: ComponentContext | None = None) -> None:
        self.config = config or DockerConfig()
        self.ctx = ctx
        self.id = "docker"
        self.max_concurrent: int | None = self.config.max_concurrent
        self._client: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._images: ImageManager | None = None
        self._open: dict[str, DockerEnvironment] = {}
        self._owner = owner_label()
        self._compose_locks: dict[str, asyncio.Lock] = {}
        self._removals: dict[str, asyncio.Future[None]] = {}
        self.engine = EngineWatch()
        self.engine_name = engine_name()

    # ------------------------------------------------------------------ plumbing
    @property
    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(POOL_THREADS, thread_name_prefix="agentcompass-docker")
        return self._pool

    @property
    def api(self) -> Any:
        if self._client is None:
            raise SandboxError("docker provider: not connected (call open/cleanup first)")
        return self._client.api

    async def run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a blocking call in the provider's thread pool; an engine that does not answer is an
        EngineUnavailableError naming it (:mod:`.engine`)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, functools.partial(fn, *args, **kwargs))
        except Exception as exc:
            down = self.engine.error(exc, self.engine_name, _call_name(fn))
            if down is None or down is exc:
                raise
            raise down from exc

    async def ping(self) -> None:
        await self.run((await self.connect()).ping)

    async def engine_down(self, exc: BaseException) -> EngineUnavailableError | None:
        """When an environment failed (``exc``), whether it is because the engine went away (a ping says)."""
        return await self.engine.down(exc, self.ping)

    async def connect(self) -> Any:
        """The low-level Docker API client (created on first use)."""
        if self._client is None:
            client = await self.run(self._make_client)
            if self._client is None:
                self._client = client
                self._images = ImageManager(client.api, self.run, self.config.platform, fallback=self._fallback())
            else:  # another open connected meanwhile
                await self.run(client.close)
        return self._client.api

    @staticmethod
    def _make_client() -> Any:
        try:
            import docker
        except ImportError as exc:
            raise SandboxError(f"the docker Python package is missing ({exc}); pip install docker") from exc
        try:
            client = docker.from_env(max_pool_size=POOL_THREADS, timeout=300)
        except docker.errors.DockerException as exc:
            raise SandboxError(
                f"cannot reach the Docker engine: {exc}; start it (scripts/ensure_docker.sh) or set DOCKER_HOST"
            ) from exc
        if str(client.api.base_url).startswith("http+docker://local"):
            # a local socket: no proxy or .netrc applies, so requests need not scan the environment for them on
            # every call (a quarter of the SDK's CPU per call)
            client.api.trust_env = False
        return client

    def _fallback(self) -> BaseFallback | None:
        """How to build the offline base image when the default one is unavailable (None: never)."""
        if not self.config.base_fallback:
            return None
        data_dir = self.ctx.data_dir if self.ctx is not None else None
        auto = self.ctx.auto_install_dependencies if self.ctx is not None else False
        return BaseFallback(self.config.base_fallback_image, self.config.debian_mirror, data_dir, auto)

    @property
    def images(self) -> ImageManager:
        if self._images is None:
            raise SandboxError("docker provider: not connected (call open/cleanup first)")
        return self._images

    def run_id(self, spec: EnvSpec) -> str:
        return spec.labels.get("agentcompass.run_id") or (self.ctx.run_id if self.ctx is not None else "") or ""

    def labels_for(self, spec: EnvSpec) -> dict[str, str]:
        """The labels of an environment: config, spec, run id, ``agentcompass=1``, owner, keep."""
        labels = {**self.config.labels, **{str(k): str(v) for k, v in spec.labels.items()}}
        if self.run_id(spec):
            labels.setdefault("agentcompass.run_id", self.run_id(spec))
        labels.update({"agentcompass": "1", "agentcompass.owner": self._owner})
        if spec.keep:
            labels["agentcompass.keep"] = "1"
        return labels

    def compose_lock(self, key: Any) -> asyncio.Lock:
        """One lock per compose build context: builds of the same task run one at a time."""
        return self._compose_locks.setdefault(str(key), asyncio.Lock())

    def remember(self, env: DockerEnvironment) -> None:
        self._open[env.id] = env

    def open_projects(self) -> set[str]:
        return {env.project.name for env in self._open.values() if env.project is not None}

    # ------------------------------------------------------------------ open
    async def open(self, spec: EnvSpec) -> DockerEnvironment:
        """Create and start a container for ``spec`` from the image it resolves to; only when the engine has no such
        image is it resolved first (pulled or built). A spec with a compose file starts a compose project instead
        (:mod:`.compose`)."""
        await self.engine.answers(self.ping, self.engine_name, self.config.engine_wait_s, self.remove_container)
        await self.connect()
        if spec.compose_file is not None:
            from agentcompass.environments.docker.compose import open_compose

            return await open_compose(self, spec)
        assert self._images is not None
        cfg = self.config
        image = await self._images.candidate(spec, cfg.pull_policy, cfg.base_image)
        started = await self._start_from(spec, image) if image is not None else None  # creating checks the image
        if started is None:
            timeout = cfg.build_timeout_s or spec.build_timeout_s or DEFAULT_BUILD_TIMEOUT_S
            image = await self._images.resolve(spec, cfg.pull_policy, cfg.base_image, timeout)
            started = await self._start_from(spec, image, missing_ok=False)
        assert started is not None and image is not None
        cid, params = started
        self._images.present(image)
        env = DockerEnvironment(
            self, cid, params["name"], image, params["working_dir"], spec.keep, cfg.exec_output_limit
        )
        env.memory_mb = cfg.memory_mb or spec.memory_mb
        self._open[cid] = env
        log.debug("opened container %s (%s) from %s for %s", env.name, cid[:12], image, spec.task_id)
        return env

    async def prebuild(self, spec: EnvSpec) -> str:
        """Pull or build the image ``spec`` starts from, without starting a container (``agentcompass images
        prebuild``); returns the image. A compose task is brought up once and removed (its build is part of
        bringing it up)."""
        await self.connect()
        if spec.compose_file is not None:
            env = await self.open(spec)
            try:
                return str(env.describe().get("image") or spec.task_id)
            finally:
                await env.close()
        assert self._images is not None
        cfg = self.config
        timeout = cfg.build_timeout_s or spec.build_timeout_s or DEFAULT_BUILD_TIMEOUT_S
        return await self._images.resolve(spec, cfg.pull_policy, cfg.base_image, timeout)

    async def _start_from(
        self, spec: EnvSpec, image: str, missing_ok: bool = True
    ) -> tuple[str, ContainerParams] | None:
        """Create and start a container of ``image`` for ``spec``: (its id, the create parameters); None when
        ``missing_ok`` and the engine has no such image."""
        import docker.errors

        cfg = self.config
        params = self._create_params(spec, image)
        try:
            return await asyncio.wait_for(self._start(params), cfg.open_timeout_s), params
        except TimeoutError:
            raise SandboxError(
                f"docker: starting a container of {image} took over {cfg.open_timeout_s:.0f}s; "
                f"it is removed by cleanup(run_id)"
            ) from None
        except docker.errors.ImageNotFound:
            if missing_ok:
                return None
            raise SandboxError(f"docker: cannot create a container of {image}: no such image") from None

    async def _start(self, params: ContainerParams) -> str:
        import docker.errors

        try:
            cid = (await self.run(self.api.create_container, **params))["Id"]
        except docker.errors.ImageNotFound:
            raise
        except docker.errors.APIError as exc:
            raise SandboxError(f"docker: cannot create a container of {params['image']}: {exc}") from exc
        except BaseException:  # cancelled while the engine creates it: remove it by name
            await asyncio.shield(self.remove_container(params["name"]))
            raise
        try:
            await self.run(self.api.start, cid)
        except BaseException as exc:
            await asyncio.shield(self.remove_container(cid))
            if isinstance(exc, docker.errors.APIError):
                raise SandboxError(f"docker: cannot start a container of {params['image']}: {exc}") from exc
            raise
        return cid

    def _create_params(self, spec: EnvSpec, image: str) -> ContainerParams:
        cfg = self.config
        labels = self.labels_for(spec)
        memory = cfg.memory_mb or spec.memory_mb
        cpus = cfg.cpus or spec.cpus
        host_config = self.api.create_host_config(
            init=True,
            network_mode=cfg.network or spec.network or "bridge",
            nano_cpus=int(cpus * 1e9) if cpus else None,
            mem_limit=f"{memory}m" if memory else None,
            memswap_limit=f"{memory}m" if memory else None,
            binds={str(m.source): {"bind": m.target, "mode": "ro" if m.read_only else "rw"} for m in spec.mounts}
            or None,
        )
        name = slug(spec.task_id, strip="-.", limit=40, default="task")
        params: ContainerParams = {
            "image": image,
            "command": KEEP_ALIVE,
            "name": f"ac-{name}-{uuid.uuid4().hex[:8]}",
            "labels": labels,
            "host_config": host_config,
            "detach": True,
            "working_dir": cfg.workdir or spec.workdir or "/app",
            "environment": {**{str(k): str(v) for k, v in spec.env.items()}, **cfg.env},
        }
        if cfg.platform:
            params["platform"] = cfg.platform
        return params

    # ------------------------------------------------------------------ close / cleanup
    def forget(self, env: DockerEnvironment) -> None:
        self._open.pop(env.id, None)

    async def remove_container(self, cid: str) -> bool:
        """Kill and remove a container and its anonymous volumes; False when it was already gone."""
        import docker.errors

        try:
            await self.run(self.api.remove_container, cid, v=True, force=True)
        except EngineUnavailableError:
            self.engine.unremoved.add(cid)  # removed when the engine answers again (at the latest in aclose)
            return False
        except docker.errors.NotFound:
            return False
        except docker.errors.APIError as exc:
            if exc.status_code == 409 and "already in progress" in str(exc):
                return False
            log.warning("docker: removing container %s failed: %s", cid[:12], exc)
            return False
        return True

    async def remove_later(self, cid: str) -> None:
        """Remove a container in the background; returns once it is under way (waiting while more than
        ``MAX_PENDING_REMOVALS`` are). :meth:`wait_removed` and :meth:`aclose` await the removals."""
        if cid not in self._removals:
            self._removals[cid] = asyncio.ensure_future(self._remove_bounded(cid))
        while len(self._removals) > MAX_PENDING_REMOVALS:
            await asyncio.wait(set(self._removals.values()), return_when=asyncio.FIRST_COMPLETED)

    async def _remove_bounded(self, cid: str) -> None:
        try:
            await asyncio.wait_for(self.remove_container(cid), REMOVAL_TIMEOUT_S)
        except TimeoutError:
            log.warning(
                "docker: removing container %s took over %.0fs; cleanup(run_id) removes it later",
                cid[:12],
                REMOVAL_TIMEOUT_S,
            )
        except Exception as exc:
            log.warning("docker: removing container %s failed: %s", cid[:12], exc)
        finally:
            self._removals.pop(cid, None)

    async def wait_removed(self) -> None:
        """Wait until every background removal has ended."""
        while self._removals:
            await asyncio.gather(*list(self._removals.values()), return_exceptions=True)

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove containers left by killed runs (of ``run_id``, or all agentcompass ones when None).

        Kept containers (keep_environment), this provider's open ones and those of a process that still
        runs on this host are left alone. Returns how many were removed.
        """
        from agentcompass.environments.docker.compose_cleanup import PROJECT_LABEL, cleanup_projects

        await self.connect()
        projects = await cleanup_projects(self, run_id, _leftover)
        wanted = ["agentcompass=1"] + ([f"agentcompass.run_id={run_id}"] if run_id is not None else [])
        found = await self.run(self.api.containers, all=True, filters={"label": wanted})
        doomed = [
            c["Id"]
            for c in found
            if c["Id"] not in self._open
            and c["Id"] not in self._removals
            and _leftover(c.get("Labels") or {})
            and PROJECT_LABEL not in (c.get("Labels") or {})
        ]
        removed = sum(await asyncio.gather(*(self.remove_container(cid) for cid in doomed)))
        if doomed or projects:
            log.info(
                "docker cleanup%s: removed %d container(s) and %d compose project(s)",
                f" of run {run_id}" if run_id else "",
                removed,
                projects,
            )
        return removed + projects

    async def aclose(self) -> None:
        """Close the environments the caller left open, wait for every container removal, then close the client
        and the thread pool."""
        for env in list(self._open.values()):
            await env.close()
        await self.wait_removed()
        await self.engine.settle(self.ping, self.engine_name, self.config.engine_wait_s, self.remove_container)
        if self._client is not None:
            client, self._client, self._images = self._client, None, None
            await self.run(client.close)
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False, cancel_futures=True)
