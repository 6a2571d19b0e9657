"""Images for tasks: a named image (pulled when missing and the policy allows) or a Dockerfile build.

Built images are tagged ``agentcompass/<benchmark>/<task>:<hash>`` where the hash covers the build context
(names, modes, contents), the build arguments, the platform and the id of the ``BASE_IMAGE`` when it is
present locally. An image with that tag is never rebuilt. Builds of the same hash run once per process
(one future per hash), and a task whose context equals an already built one gets a new tag on the same
image instead of a build. Failures raise :class:`ImageError` (not retried) naming the image and why.

:meth:`ImageManager.candidate` names the image a spec resolves to when it is present, without asking the engine
whether it is: the provider creates the container from it at once (creation is the presence check) and resolves,
pulls or builds only when the engine answers that there is no such image.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass.errors import ImageError
from agentcompass.kit import slug

log = logging.getLogger("agentcompass.environments.docker")
HASH_LABEL = "agentcompass.context_hash"


def repo_component(text: str) -> str:
    """A valid lowercase Docker repository path component made from ``text``."""
    return slug(text, keep="a-z0-9", lower=True, strip="-", limit=100)


# Python byte-code caches are never part of a build context: an installed package compiles the .py files of
# its bundled tasks, and those caches would land in the image (and in a task's git repository)
BYTECODE_DIRS = ("__pycache__",)
BYTECODE_SUFFIXES = (".pyc", ".pyo")
BYTECODE_EXCLUDES = ["**/__pycache__", "**/*.pyc", "**/*.pyo", "__pycache__", "*.pyc", "*.pyo"]


def build_context(context: Path) -> Any:
    """The build context of ``context`` as a tar file object: its ``.dockerignore`` applied, as ``docker build``
    applies it, plus :data:`BYTECODE_EXCLUDES`."""
    from docker.utils import build as docker_build

    ignore = context / ".dockerignore"
    patterns: list[str] = []
    if ignore.is_file():
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
        patterns = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return docker_build.tar(
        str(context), exclude=patterns + BYTECODE_EXCLUDES, dockerfile=("Dockerfile", None), gzip=False
    )


def context_hash(context: Path, build_args: dict[str, str], extra: str = "") -> str:
    """sha256 (first 16 hex digits) of the build context's files, the build arguments and ``extra``."""
    h = hashlib.sha256()
    for key in sorted(build_args):
        h.update(f"arg\0{key}\0{build_args[key]}\0".encode())
    h.update(f"extra\0{extra}\0".encode())
    for dirpath, dirnames, filenames in os.walk(context):
        dirnames[:] = sorted(d for d in dirnames if d not in BYTECODE_DIRS)
        filenames = [f for f in filenames if not f.endswith(BYTECODE_SUFFIXES)]
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, context)
            st = os.lstat(path)
            h.update(f"file\0{rel}\0{st.st_mode & 0o777 | (st.st_mode & 0o170000)}\0".encode())
            if os.path.islink(path):
                h.update(os.readlink(path).encode())
            else:
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        h.update(block)
    return h.hexdigest()[:16]


def uses_base_image(dockerfile: Path) -> bool:
    """True when the Dockerfile builds FROM the ``BASE_IMAGE`` build argument."""
    try:
        text = dockerfile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.strip().upper().startswith("FROM") and "BASE_IMAGE" in line for line in text.splitlines())


def _last_error(lines: list[str]) -> str:
    return next((ln for ln in reversed(lines) if ln.strip()), "no output").strip()[:500]


@dataclass
class BaseFallback:
    """The offline base image built (see :mod:`.base_image`) when the default base image is unavailable."""

    image: str
    mirror: str
    data_dir: Path | None = None
    auto_install: bool = False  # install debootstrap on the host (apt-get) when it is missing


class ImageManager:
    """Resolves the image of an EnvSpec; every blocking call goes through ``run`` (a thread pool)."""

    def __init__(
        self, api: Any, run: Callable[..., Awaitable[Any]], platform: str | None, fallback: BaseFallback | None = None
    ) -> None:
        self.api = api
        self.run = run
        self.platform = platform
        self.fallback = fallback
        self._bases: dict[str, asyncio.Future[str]] = {}  # base image asked for -> the one used
        self._builds: dict[str, asyncio.Future[str]] = {}  # context hash -> build (failures stay)
        self._present: set[str] = set()
        self._digests: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}
        self._uses_base: dict[Path, bool] = {}  # context -> its Dockerfile builds FROM BASE_IMAGE
        self._ids: dict[str, str] = {}  # image ids of base images, once per request

    async def exists(self, ref: str) -> bool:
        import docker.errors

        if ref in self._present:
            return True
        try:
            found = await self.run(self.api.inspect_image, ref)
        except docker.errors.ImageNotFound:
            return False
        except docker.errors.APIError as exc:
            if exc.status_code == 404:
                return False
            raise
        self._present.add(ref)
        if isinstance(found, dict) and found.get("Id"):
            self._ids.setdefault(ref, str(found["Id"]))  # the build hash's base id: no second inspect
        return True

    async def pull(self, ref: str) -> str | None:
        """Pull ``ref``; None on success, else the reason."""
        import docker.errors

        try:
            out = await self.run(self._pull_blocking, ref)
        except docker.errors.DockerException as exc:
            return str(exc).strip().splitlines()[0][:500] if str(exc).strip() else type(exc).__name__
        if out:
            return out
        self._present.add(ref)
        return None

    def _pull_blocking(self, ref: str) -> str | None:
        for line in self.api.pull(ref, stream=True, decode=True, platform=self.platform):
            if isinstance(line, dict) and line.get("error"):
                return str(line["error"])[:500]
        return None

    async def base(self, ref: str, policy: str) -> str:
        """The base image to use for ``ref``: itself when present or pullable; for the default base image (or the
        fallback's own tag) that is neither, the offline fallback, built once; else an ImageError."""
        fut = self._bases.get(ref)
        if fut is None or (fut.done() and (fut.cancelled() or fut.exception() is not None)):
            fut = self._bases[ref] = asyncio.ensure_future(self._base(ref, policy))
        return await asyncio.shield(fut)

    async def _base(self, ref: str, policy: str) -> str:
        from .config import DEFAULT_BASE_IMAGE

        if await self.exists(ref):
            return ref
        why = "pull_policy is 'never'" if policy == "never" else await self.pull(ref)
        if why is None:
            return ref
        fb = self.fallback
        if fb is None or ref not in (DEFAULT_BASE_IMAGE, fb.image):
            raise ImageError(f"base image {ref}: not present locally and cannot be pulled ({why})")
        if ref != fb.image and await self.exists(fb.image):
            log.warning("base image %s cannot be pulled (%s); using the local %s", ref, why, fb.image)
            return fb.image
        log.warning("base image %s cannot be pulled (%s); building the offline fallback %s", ref, why, fb.image)
        from .base_image import build_base_image

        data_dir = fb.data_dir or Path(os.environ.get("AGENTCOMPASS_DATA_DIR") or Path.home() / ".cache/agentcompass")
        await self.run(
            functools.partial(
                build_base_image, self.api, fb.image, data_dir, mirror=fb.mirror, auto_install=fb.auto_install
            )
        )
        self._present.add(fb.image)
        return fb.image

    async def resolve(self, spec: Any, policy: str, base_image: str, timeout_s: float) -> str:
        """The image reference to start ``spec`` from (pulled or built as needed; default the base image)."""
        reasons: list[str] = []
        if not spec.image and not spec.dockerfile_dir:
            return await self.base(base_image, policy)
        if spec.image or not spec.dockerfile_dir:
            image = spec.image or base_image
            if policy != "always" and await self.exists(image):
                return image
            if policy == "never":
                reasons.append(f"{image} is not present locally and pull_policy is 'never'")
            else:
                why = await self.pull(image)
                if why is None or (policy == "always" and await self.exists(image)):
                    if why:
                        log.warning("pull of %s failed (%s); using the local image", image, why)
                    return image
                reasons.append(f"pull of {image} failed: {why}")
            if not spec.dockerfile_dir:
                raise ImageError(f"image {image}: cannot be used: {'; '.join(reasons)}")
        return await self.build(spec, base_image, timeout_s, reasons, policy)

    async def build(
        self, spec: Any, base_image: str, timeout_s: float, reasons: list[str], policy: str = "missing"
    ) -> str:
        context = Path(spec.dockerfile_dir)
        if not (context / "Dockerfile").is_file():
            raise ImageError(f"task {spec.task_id}: no Dockerfile in {context}" + "".join(f"; {r}" for r in reasons))
        args = await self._args(spec, context, base_image, policy)
        tag = await self._build_tag(spec, context, args)
        if await self.exists(tag):
            return tag
        digest = tag.rpartition(":")[2]
        fut = self._builds.get(digest)
        if fut is None or fut.cancelled() or (not fut.done() and fut.get_loop() is not asyncio.get_running_loop()):
            fut = asyncio.ensure_future(self._build_or_tag(context, tag, args, digest, timeout_s))
            self._builds[digest] = fut
        try:
            built = await asyncio.shield(fut)
        except ImageError as exc:
            if not reasons:
                raise
            raise ImageError(f"{exc}; and before that: {'; '.join(reasons)}") from exc
        if built != tag:
            await self._tag(built, tag)
        return tag

    async def candidate(self, spec: Any, policy: str, base_image: str) -> str | None:
        """The image :meth:`resolve` returns for ``spec`` when that image is present (None: resolve first, as
        under ``pull_policy: always``). Asks the engine nothing but, once per request, about a base image."""
        if spec.image or not spec.dockerfile_dir:
            if policy == "always":
                return None
            if spec.image:
                return spec.image
            known = self._bases.get(base_image)  # the base (or its offline fallback) already resolved
            ok = known is not None and known.done() and not known.cancelled() and known.exception() is None
            return known.result() if ok and known is not None else base_image
        context = Path(spec.dockerfile_dir)
        if not (context / "Dockerfile").is_file():
            return None
        return await self._build_tag(spec, context, await self._args(spec, context, base_image, policy))

    def present(self, ref: str) -> None:
        """``ref`` is known to exist (a container was just created from it)."""
        self._present.add(ref)

    async def _args(self, spec: Any, context: Path, base_image: str, policy: str) -> dict[str, str]:
        """The build arguments of ``spec``: ``BASE_IMAGE`` is the base image to use (see :meth:`base`) when the
        Dockerfile builds from it."""
        args = {"BASE_IMAGE": base_image, **{str(k): str(v) for k, v in spec.build_args.items()}}
        uses = self._uses_base.get(context)
        if uses is None:
            uses = self._uses_base[context] = uses_base_image(context / "Dockerfile")
        if uses:
            args["BASE_IMAGE"] = await self.base(args["BASE_IMAGE"], policy)
        return args

    async def _build_tag(self, spec: Any, context: Path, args: dict[str, str]) -> str:
        """``agentcompass/<benchmark>/<task>:<context hash>`` (hashed once per context and arguments)."""
        key = (str(context.resolve()), tuple(sorted(args.items())))
        digest = self._digests.get(key)
        if digest is None:  # once per provider: contexts do not change during a request
            base_id = await self._image_id(args["BASE_IMAGE"])
            digest = self._digests[key] = await self.run(context_hash, context, args, f"{self.platform}|{base_id}")
        return f"agentcompass/{repo_component(spec.benchmark or 'local')}/{repo_component(spec.task_id)}:{digest}"

    async def _image_id(self, ref: str) -> str:
        """Id of image ``ref`` ('' when it is missing: the build will pull it); known ids are kept."""
        if ref in self._ids:
            return self._ids[ref]
        try:
            image_id = (await self.run(self.api.inspect_image, ref))["Id"]
        except Exception:
            return ""
        self._ids[ref] = image_id
        return image_id

    async def _tag(self, source: str, tag: str) -> None:
        repo, _, version = tag.rpartition(":")
        await self.run(self.api.tag, source, repo, version)
        self._present.add(tag)

    async def _build_or_tag(self, context: Path, tag: str, args: dict[str, str], digest: str, timeout_s: float) -> str:
        same = await self.run(self.api.images, filters={"label": f"{HASH_LABEL}={digest}"})
        if same:
            return same[0]["Id"]
        log.info("building %s from %s", tag, context)
        start, stop = time.monotonic(), threading.Event()
        try:
            lines = await asyncio.wait_for(
                self.run(self._build_blocking, context, tag, args, digest, timeout_s, stop), timeout_s
            )
        except TimeoutError:
            stop.set()
            raise ImageError(f"image {tag}: build of {context} timed out after {timeout_s:.0f}s") from None
        except Exception as exc:
            stop.set()
            raise ImageError(f"image {tag}: build of {context} failed: {exc}") from exc
        if not await self.exists(tag):
            raise ImageError(f"image {tag}: build of {context} failed: {_last_error(lines)}")
        log.info("built %s in %.1fs", tag, time.monotonic() - start)
        return tag

    def _build_blocking(
        self, context: Path, tag: str, args: dict[str, str], digest: str, timeout_s: float, stop: threading.Event
    ) -> list[str]:
        lines: list[str] = []
        fileobj = build_context(context)
        stream = self.api.build(
            fileobj=fileobj,
            custom_context=True,
            tag=tag,
            buildargs=args,
            rm=True,
            forcerm=True,
            decode=True,
            labels={HASH_LABEL: digest, "agentcompass": "1"},
            platform=self.platform,
            timeout=timeout_s,
        )
        try:
            for item in stream:
                if stop.is_set():
                    break
                if item.get("error"):
                    lines.append(str(item["error"]))
                    raise ImageError(_last_error(lines))
                if item.get("stream"):
                    lines.extend(str(item["stream"]).splitlines()[-5:])
                    del lines[:-50]
        finally:
            stream.close()
            fileobj.close()
        return lines
