"""``Model``: the client behind every ``conf/model/*.yaml`` (implements ``interfaces.ModelClient``).

One ``Model`` is built per request; ``fork()`` gives each attempt its own ``usage`` while sharing the
HTTP connections, the protocol chosen for the endpoint and the provider concurrency limit. Each call goes
through the attempt's :class:`~._cache.calls.AttemptCalls` (response cache, replay of a recorded run, the
per-attempt cost limit); prices come from ``prices`` or the price table (:mod:`._prices`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from agentcompass.errors import AttemptLimitReached, ConfigError, ModelError
from agentcompass.interfaces import ComponentContext, ModelResponse, Usage

from . import _prices, _record, protocols
from ._auto import (
    DEFAULT_BASE_URL,
    auto_protocols,
    base_url_for,
    default_provider,
    display_url,
    family_base_url,
    host_of,
)
from ._cache.calls import CallPlan, hit_usage
from ._circuit import Circuit
from ._errors import EndpointUnsupportedError
from ._limits import AttemptLimits
from ._params import check_params
from ._retry import RetryPolicy, call_with_retries
from ._shared import Shared
from .config import ModelConfig


@dataclass(frozen=True)
class _Route:
    """How one protocol of a client is reached (the key is held here only in memory)."""

    module: Any
    family: str
    key: str
    base: str
    endpoint: str

    def __repr__(self) -> str:
        return f"_Route({self.module.PROTOCOL}, {self.endpoint})"


class Model:
    """A model endpoint spoken to over one of the protocols of :mod:`.protocols` (openai-chat, openai-responses,
    anthropic-messages, or a plug-in's)."""

    config_class = ModelConfig

    def __init__(
        self, config: ModelConfig, ctx: ComponentContext | None = None, *, _shared: Shared | None = None
    ) -> None:
        if not config.id:
            raise ConfigError(
                "model.id is not set: pass a model name (model=<name>) or set 'id' in the model's YAML file"
            )
        self.config, self._ctx = config, ctx
        self.model_id: str = config.id
        candidates = config.protocol_list() or auto_protocols(config.base_url, config.id)
        self.provider: str = config.provider or default_provider(config.base_url, candidates)
        self.context_limit = config.context_limit
        self.usage = Usage()
        self._root = _shared is None
        self._shared = _shared or Shared(candidates, config.max_concurrency)
        if _shared is None:
            self._shared.circuit = Circuit(config.fail_fast_after)
            self._shared.price = _prices.resolve(config.id, config.prices)
            data = ctx.data_dir if ctx is not None else None
            self._shared.plan = CallPlan.from_config(config, data, self._shared.price.prices)
        self._calls = self._shared.plan.for_attempt(None, 0)
        self._log = (ctx.logger if ctx is not None else logging.getLogger("agentcompass")).getChild("models")
        self._policy = RetryPolicy(
            config.max_retries, config.retry_budget_s, config.backoff_base_s, config.backoff_max_s
        )
        self._keys: dict[str, SecretStr] = {}  # key variable -> the key (given, or read from the variable)
        if _shared is None:
            _register_environment_keys()
        self._recorder: _record.CallRecorder | None = None  # set by fork(attempt): model_calls.jsonl
        self._limits = AttemptLimits()  # set_attempt_limits (execution.attempt_max_model_calls / _tokens_total)
        required = ctx is None or ctx.model_required  # a harness that calls no model: checked at a first call
        if _shared is None and self._shared.plan.replay is None and required:  # a missing key fails now
            self._api_key(candidates[0])

    # ------------------------------------------------------------------ public surface
    @property
    def protocol(self) -> str:
        """The protocol in use (the first candidate until an endpoint has answered)."""
        return self._shared.chosen or self._shared.candidates[0]

    @property
    def total_usage(self) -> Usage:
        """Usage of this client and all its forks together."""
        return self._shared.total

    def describe(self) -> dict[str, Any]:
        """What results may record about the model (never the key)."""
        base = display_url(base_url_for(self.protocol, self.config.base_url))
        return {"id": self.model_id, "protocol": self.protocol, "base_url": base, "provider": self.provider}

    @property
    def price_info(self) -> dict[str, Any]:
        """The prices of this model and their source (``model.prices``, the price table, or unknown)."""
        return dict(self._shared.price.source)

    def fork(self, attempt: Any = None) -> Model:
        """A client sharing connections, protocol choice and provider limit, with its own ``usage``; given an
        :class:`~agentcompass.interfaces.AttemptContext`, it records every call in the attempt's
        ``model_calls.jsonl``, keys its calls by the attempt's sample in the response cache and answers them from
        that task's recorded calls when replaying."""
        child = Model(self.config, self._ctx, _shared=self._shared)
        attempt_dir = getattr(attempt, "attempt_dir", None)
        if attempt_dir is not None:
            secrets = self._shared.plan.credentials.values()
            child._recorder = _record.CallRecorder(attempt_dir / _record.FILE_NAME, secrets)
            role = getattr(attempt, "role", None)  # a model role's fork: each line names the role
            if role:
                child._recorder.tags = {"role": str(role)}
        if attempt is not None:  # an AttemptContext (or any object with its task and sample)
            task_id = getattr(getattr(attempt, "task", None), "id", None)
            child._calls = self._shared.plan.for_attempt(task_id, int(getattr(attempt, "sample", 1) or 1))
        return child

    @property
    def recorder(self) -> _record.CallRecorder | None:
        """Where this client records its calls (None: not recorded)."""
        return self._recorder

    async def forward(self, request: Any) -> Any:
        """Send an agent's request in its API's wire form (a :class:`~._forward.ForwardRequest`); returns a
        :class:`~._forward.Forwarded` answer (see :mod:`._forward`). Used by the gateway."""
        from ._forward import forward

        return await forward(self, request)

    def set_attempt_limits(self, max_model_calls: int | None, max_tokens_total: int | None) -> None:
        """Refuse this client's calls (:class:`~agentcompass.errors.AttemptLimitReached`) once it made
        ``max_model_calls`` calls or spent ``max_tokens_total`` tokens (see :mod:`._limits`)."""
        self._limits.max_model_calls, self._limits.max_tokens_total = max_model_calls, max_tokens_total

    def set_attempt_cost_limit(self, usd: float | None) -> None:
        """Stop this client's calls once they cost ``usd`` (those answered from the cache at their price)."""
        self._calls.cost_limit = usd

    def set_concurrency_limit(self, n: int | None) -> None:
        """Cap concurrent requests of this client and all its forks at ``n`` (None: no cap)."""
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ConfigError(f"provider_limits[{self.provider!r}]={n!r}: expected an integer >= 1")
        self._shared.set_limit(n)

    async def aclose(self) -> None:
        """Close the shared HTTP connections (a fork's ``aclose`` does nothing)."""
        if self._root:
            await self._shared.aclose()
            raw = self._shared.__dict__.get("raw_pool")  # the gateway's plain HTTP pool (_upstream)
            if raw is not None:
                await raw.aclose()

    async def complete(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None, **params: Any
    ) -> ModelResponse:
        """Send ``messages``; ``params`` override the config's ``params`` for this call. ``tools`` (chat form,
        see :meth:`agentcompass.interfaces.ModelClient.complete`) default to the ``tools`` of the params."""
        merged = {**self.config.params, **check_params(params, "model call params")} if params else self.config.params
        if tools is None and "tools" in merged:
            merged = dict(merged)
            tools = merged.pop("tools")
        elif "tools" in merged:
            merged = {k: v for k, v in merged.items() if k != "tools"}
        self._admit(messages, merged, tools)
        if self._shared.chosen is None and not self._calls.calls_endpoint:
            self._shared.chosen = self._calls.recorded_protocol(self._shared.candidates)
        order = [self._shared.chosen] if self._shared.chosen else list(self._shared.candidates)
        refused: list[str] = []
        for i, protocol in enumerate(order):
            try:
                response = await self._call(protocol, messages, merged, tools)
            except EndpointUnsupportedError as exc:
                refused.append(str(exc))
                if i == len(order) - 1:
                    raise self._none_supported(order, refused, exc) from None
                self._log.info("%s; trying %s", exc, order[i + 1])
                continue
            if self._shared.chosen is None:
                self._shared.chosen = protocol
                if len(order) > 1:
                    self._log.info("model %s at %s: using protocol %s", self.model_id, self.provider, protocol)
            return response
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ internals
    def _admit(self, messages: Sequence[Mapping[str, object]], params: Mapping[str, object], tools: Any) -> None:
        """The per-attempt limits (:mod:`._limits`, and the cost limit); a refused call is recorded (``status:
        limit``)."""
        try:
            self._calls.check_limit(self.usage)  # execution.attempt_cost_limit_usd
            self._limits.admit(self.usage)
        except AttemptLimitReached as exc:
            if self._recorder is not None:
                route = self._route(self.protocol)
                self._record(self._recorder.begin(), route, self.protocol, messages, params, tools, None, 0, exc)
            raise

    def _none_supported(self, order: list[str], refused: list[str], last: ModelError) -> ModelError:
        if len(refused) == 1:
            return last
        return ModelError(
            f"no protocol of {order} is supported by the endpoint: " + "; ".join(refused),
            endpoint=last.endpoint,
            status=last.status,
        )

    def _api_key(self, protocol: str) -> str:
        """The key of ``protocol``: ``model.api_key``, else its key variable (:func:`.protocols.key_env`)."""
        if self._shared.plan.replay is not None:  # a replayed run never calls the endpoint
            return "EMPTY"
        env = protocols.key_env(protocol)
        if env not in self._keys:
            key = self.config.api_key or (SecretStr(os.environ[env]) if os.environ.get(env) else None)
            if key is None:
                family = protocols.family(protocol)
                base = family_base_url(family, self.config.base_url)
                if host_of(base) == host_of(DEFAULT_BASE_URL[family]):
                    raise ConfigError(
                        f"model {self.model_id!r}: no API key for {host_of(base)}: set {env} or model.api_key"
                    )
                key = SecretStr("EMPTY")
            self._keys[env] = key
            self._shared.plan.credentials.add(key.get_secret_value())  # also a key read from the environment
        return self._keys[env].get_secret_value()

    def _route(self, protocol: str) -> _Route:
        """Module, key, base URL and endpoint of ``protocol`` (resolved once for a client and its forks)."""
        route = self._shared.routes.get(protocol)
        if route is None:
            module, family = protocols.module(protocol), protocols.family(protocol)
            key, base = self._api_key(protocol), base_url_for(protocol, self.config.base_url)
            route = _Route(module, family, key, base, display_url(base + module.PATH))
            self._shared.routes[protocol] = route
        return route

    async def _call(
        self,
        protocol: str,
        messages: Sequence[Mapping[str, object]],
        params: dict[str, Any],
        tools: Sequence[Mapping[str, object]] | None = None,
    ) -> ModelResponse:
        route = self._route(protocol)
        rec = self._recorder
        began = rec.begin() if rec is not None else None
        pending = self._calls.begin(protocol, route.endpoint, self.model_id, messages, tools, params)
        try:
            answered = await self._calls.answer(pending)
        except BaseException as exc:  # replay: not the recorded request, or a recorded failure
            if began is not None:
                self._record(began, route, protocol, messages, params, tools, None, 0, exc, cache="replay")
            raise
        if answered is not None:  # from the recording or the cache: no HTTP request
            spent = hit_usage(answered)
            self.usage.add(spent)
            self._shared.total.add(spent)
            if began is not None:
                how = "hit" if answered.source == "cache" else "replay"
                args = (protocol, messages, params, tools, answered, 0, None)
                self._record(began, route, *args, cache=how, key=pending.key, usage=spent)
            return answered
        module, timeout = route.module, self.config.request_timeout_s
        client = self._shared.client(module.make_client, lambda: module.make_client(route.base, route.key, timeout))
        retries = 0

        def on_retry() -> None:
            nonlocal retries
            retries += 1
            self.usage.n_retries += 1
            self._shared.total.n_retries += 1

        async def send() -> ModelResponse:
            with self._watch(protocol, module):
                async with self._shared.slot():
                    prices = self._shared.price.prices
                    return await module.call(client, self.model_id, messages, params, prices, tools)

        state = self._calls.state
        try:
            response = await call_with_retries(
                send,
                self._policy,
                protocol=protocol,
                endpoint=route.endpoint,
                secret=route.key,
                log=self._log,
                on_retry=on_retry,
            )
        except BaseException as exc:
            if began is not None:
                self._record(began, route, protocol, messages, params, tools, None, retries, exc, cache=state)
            raise
        self.usage.add(response.usage)
        self._shared.total.add(response.usage)
        response.usage.n_retries = retries
        await self._calls.keep(pending, response)
        if began is not None:
            args = (protocol, messages, params, tools, response, retries, None)
            self._record(began, route, *args, cache=state, key=pending.key if state != "off" else None)
        return response

    def _record(self, began: tuple[int, float, str], route: _Route, *args: Any, **marks: Any) -> None:
        """One line of ``model_calls.jsonl`` for a ``complete`` call (see :mod:`._record`)."""
        self._recorder.add_secret(route.key)
        self._recorder.write(_record.complete_line(began, self.model_id, route.endpoint, *args, **marks))

    def _watch(self, protocol: str, module: Any) -> Any:
        """The fail-fast circuit around one HTTP request of ``protocol`` (see :mod:`._circuit`)."""
        return self._shared.circuit.watch(
            protocol, lambda: display_url(base_url_for(protocol, self.config.base_url) + module.PATH)
        )


def _register_environment_keys() -> None:
    """The keys every bundled protocol may read from the environment are secrets of the run (never in a log,
    a file or a page), whichever protocol this client speaks."""
    from agentcompass.redaction import register_secret

    for env in protocols.key_envs():
        register_secret(os.environ.get(env))
