"""Replay a scripted conversation through a harness and return what the model was sent.

The conformance kit for harnesses: :func:`replay` starts a :class:`ScriptedModelServer` answering from
``replies``, builds a model client on it (``protocol``, any ``model`` config keys), opens an environment from
``provider`` (the local environment under ``tmp_dir`` by default), uploads ``files``, runs the harness once on
``task`` and returns a :class:`Replay`: the harness's result (or the exception it raised), every recorded model
request, and the attempt directory the harness wrote into. Two harnesses (or a harness and the published agent
it reproduces) driven with the same replies can then be compared request by request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from agentcompass.interfaces import (
    CONVERSATION,
    ENV_MOUNTS,
    AgentResult,
    AttemptContext,
    ComponentContext,
    EnvironmentProvider,
    EnvSpec,
    Harness,
    Task,
)

from .scripted_server import ScriptedModelServer


class ReplayOptions(TypedDict, total=False):
    """The keywords of :func:`areplay` after its first four arguments (a harness suite's ``replay_kwargs``)."""

    provider: EnvironmentProvider | None
    files: dict[str, Path] | None
    protocol: str
    model: dict[str, object] | None
    benchmark: Any
    server_kwargs: dict[str, Any] | None
    before_run: Callable[[Any], Any] | None


@dataclass
class Replay:
    result: AgentResult | None
    error: BaseException | None
    requests: list[dict[str, Any]]
    attempt_dir: Path
    server: ScriptedModelServer | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # environment files read back after the run

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of every request the model endpoint received, in order."""
        return [r["body"] for r in self.requests]

    @property
    def messages(self) -> list[list[dict[str, Any]]]:
        """The message list of every chat request (``messages`` for chat/messages, ``input`` for responses)."""
        return [b.get("messages", b.get("input")) for b in self.bodies]


def model_client(base_url: str, tmp_dir: Path, *, protocol: str = "openai-chat", **extra: Any) -> Any:
    """A model client on ``base_url`` built through the registry, as a request builds it (SDK retries off)."""
    from agentcompass._config import build

    cfg = {
        "_target_": "agentcompass.models.client.Model",
        "id": extra.pop("id", "scripted-model"),
        "base_url": base_url,
        "api_key": "sk-replay",
        "api_protocol": protocol,
        "max_retries": 0,
        **extra,
    }
    return build("model", cfg, ComponentContext(data_dir=tmp_dir)).fork()


def _local_provider(tmp_dir: Path) -> EnvironmentProvider:
    from agentcompass.environments.local import LocalConfig, LocalProvider

    return LocalProvider(LocalConfig(root_dir=str(tmp_dir / "workspaces")), None)


class _LazyGateway:
    """A model gateway serving the attempt's client (``ctx.gateway``), started on first use as a request's is."""

    def __init__(self, client: Any) -> None:
        self.client, self.gateway, self.session = client, None, None

    async def endpoint(self, env: Any = None) -> Any:
        if self.gateway is None:
            from agentcompass.gateway.service import Gateway

            self.gateway = await Gateway().start()
            self.session = self.gateway.open_session(self.client, "replay")
        return await self.gateway.endpoint(self.session, env)

    async def aclose(self) -> None:
        if self.gateway is not None:
            await self.gateway.aclose()


async def areplay(
    harness: Harness,
    task: Task,
    replies: Any,
    tmp_dir: Path,
    *,
    provider: EnvironmentProvider | None = None,
    files: dict[str, Path] | None = None,
    protocol: str = "openai-chat",
    model: dict[str, object] | None = None,
    read_back: list[str] | None = None,
    benchmark: Any = None,
    server_kwargs: dict[str, Any] | None = None,
    before_run: Callable[[Any], Any] | None = None,
) -> Replay:
    """Run ``harness`` once on ``task`` against scripted ``replies``; see the module docstring.

    ``files`` maps environment paths to host paths uploaded before the run; ``read_back`` lists environment
    paths read after it (into :attr:`Replay.files`; missing ones are skipped); ``before_run(env)`` may prepare
    the environment further (awaited when it returns an awaitable)."""
    tmp_dir = Path(tmp_dir)
    attempt_dir = tmp_dir / "attempt"
    attempt_dir.mkdir(parents=True, exist_ok=True)
    provider = provider or _local_provider(tmp_dir)
    mounts = ENV_MOUNTS.of(harness)
    env = await provider.open(
        EnvSpec(
            task_id=task.id,
            workdir=task.workdir,
            image=task.image,
            dockerfile_dir=task.dockerfile_dir,
            mounts=list(mounts(task)) if mounts is not None else [],
        )
    )
    result: AgentResult | None = None
    error: BaseException | None = None
    got: dict[str, bytes] = {}
    try:
        for dst, src in (files or {}).items():
            await env.upload(Path(src), dst)
        if before_run is not None:
            maybe = before_run(env)
            if asyncio.iscoroutine(maybe):
                await maybe
        with ScriptedModelServer(replies=replies, **(server_kwargs or {})) as srv:
            client = model_client(srv.base_url, tmp_dir, protocol=protocol, **(model or {}))
            ctx = AttemptContext(
                task=task, attempt=1, attempt_dir=attempt_dir, benchmark=benchmark, time_limit_s=task.agent_timeout_s
            )
            gateway = _LazyGateway(client)  # for agents that call the model API themselves
            ctx.gateway = gateway.endpoint
            try:
                async with asyncio.timeout(task.agent_timeout_s):
                    make = CONVERSATION.of(benchmark)  # a tool-use benchmark: its conversation, as the core makes it
                    if make is not None:
                        ctx.conversation = await make(task, env, ctx)
                    result = await harness.run(task, env, client, ctx)
            except Exception as exc:
                error = exc
            finally:
                await gateway.aclose()
                await client.aclose()
            for path in read_back or []:
                try:
                    got[path] = await env.read_file(path)
                except Exception:
                    continue
            return Replay(result, error, list(srv.requests), attempt_dir, srv, got)
    finally:
        await env.close()
        await provider.aclose()


def replay(harness: Harness, task: Task, replies: Any, tmp_dir: Path, **kwargs: Any) -> Replay:
    """:func:`areplay` from synchronous code (a test)."""
    return asyncio.run(areplay(harness, task, replies, tmp_dir, **kwargs))
