"""Model roles: a request's other models (the simulated user, a judge...), asked for by name through the attempt
context (``ctx.model_role("user")``).

A role's settings are, from weakest to strongest: the main model's endpoint (``base_url``, ``api_key``,
``api_protocol``, limits, cache, replay; not its ``id`` nor its ``params``), the benchmark's default for the role
(:data:`agentcompass.conversation.MODEL_ROLES`: what its reference uses), then ``model_roles.<role>`` of the request.
Each role is one client per request, built on first use (a run that never asks for a role never needs its key), forked
per attempt like the main model: its calls go through the same model layer (retries, provider limits, fail-fast,
cache, replay) and are recorded in the attempt's ``model_calls.jsonl`` with ``"role": <name>``; its usage is kept per
role.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError, ModelRoleUnavailableError
from agentcompass.interfaces import ComponentContext, ModelClient, Usage

from ..record import UsageRecord, usage_record

DEFAULT_TARGET = "agentcompass.models.client.Model"
_ENDPOINT_KEYS = ("id", "params", "prices", "context_limit")  # what a role never takes from the main model


def role_config(role: str, main: dict[str, Any], default: dict[str, Any] | None, given: dict[str, Any] | None) -> dict:
    """The composed model section of ``role`` (see the module's docstring); ConfigError when it has no model id."""
    if not main.get("_target_") and not given:
        raise ModelRoleUnavailableError(
            f"model role {role!r} is not configured and the request has no model whose endpoint it could use: set "
            f'model_roles.{role} (CLI: --model-roles \'{{"{role}": {{"id": "<model>", "base_url": ...}}}}\')'
        )
    cfg: dict[str, Any] = {"_target_": DEFAULT_TARGET}
    if main.get("_target_"):
        cfg.update({k: v for k, v in main.items() if k not in _ENDPOINT_KEYS})
    for layer in (default or {}, given or {}):
        for key, value in layer.items():
            if key == "params" and isinstance(value, dict):
                cfg["params"] = {**(cfg.get("params") or {}), **value}
            else:
                cfg[key] = value
    if not cfg.get("id"):
        cfg["id"] = main.get("id") if main.get("_target_") else None
    if not cfg.get("id") or cfg["id"] == "none":
        raise ModelRoleUnavailableError(
            f"model role {role!r} has no model: set model_roles.{role}.id (CLI: --model-roles "
            f'\'{{"{role}": {{"id": "<model>"}}}}\')'
        )
    return cfg


class ModelRoles:
    """The request's role clients, built on first use and shared by its attempts."""

    def __init__(
        self,
        main: dict[str, Any],
        given: dict[str, dict[str, Any]],
        defaults: dict[str, Any] | None,
        ctx: ComponentContext,
    ) -> None:
        self._main, self._given, self._defaults, self._ctx = main, dict(given), dict(defaults or {}), ctx
        self._clients: dict[str, ModelClient] = {}
        self._lock = threading.Lock()
        for role, section in self._given.items():
            if not isinstance(section, dict):
                raise ConfigError(f"model_roles.{role}: {section!r} is not a mapping of model settings")

    @property
    def names(self) -> list[str]:
        """Every role the request or the benchmark names."""
        return sorted({*self._given, *self._defaults})

    def client(self, role: str) -> ModelClient:
        """The request-wide client of ``role`` (built now if it is the first use)."""
        with self._lock:
            if role not in self._clients:
                from agentcompass._config import build

                cfg = role_config(role, self._main, self._defaults.get(role), self._given.get(role))
                client = build("model", cfg, self._ctx)
                if client is None:
                    raise ModelRoleUnavailableError(f"model role {role!r}: its model section builds no client")
                self._clients[role] = client
            return self._clients[role]

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()


@dataclass(frozen=True)
class RoleAttempt:
    """What a role's client forks from: the attempt's task, sample and directory (its calls are recorded there and
    keyed by them in the cache and in a replay) and the role's name (each recorded call carries it)."""

    task: Any
    sample: int
    attempt_dir: Path
    role: str


class AttemptRoles:
    """One attempt's forks of the role clients (``ctx.model_role``), each recording its calls with its role."""

    def __init__(self, roles: ModelRoles | None, attempt: Any) -> None:
        self._roles, self._attempt = roles, attempt
        self.forks: dict[str, ModelClient] = {}

    def __call__(self, role: str) -> ModelClient:
        if role not in self.forks:
            if self._roles is None:
                raise ModelRoleUnavailableError(f"no model role {role!r} in this attempt")
            attempt = self._attempt
            self.forks[role] = self._roles.client(role).fork(
                RoleAttempt(attempt.task, attempt.sample, attempt.attempt_dir, role)
            )
        return self.forks[role]

    def usage(self) -> dict[str, UsageRecord]:
        """Usage per role of this attempt (the roles it called: a client asked for but never called is left out)."""
        return {role: usage_record(fork.usage) for role, fork in sorted(self.forks.items()) if _used(fork.usage)}


def _used(usage: Usage) -> bool:
    return bool(usage.n_calls or usage.cache_hits or usage.n_retries)
