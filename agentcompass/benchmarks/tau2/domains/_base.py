"""The shape every τ²-bench domain shares: :class:`ToolKit` (a domain's tools over its DB) and :class:`Environment`
(agent tools, optional user tools), mirroring ``tau2.environment.toolkit.ToolKitBase`` and
``tau2.environment.environment.Environment`` as far as running and grading conversations needs.

A domain module subclasses :class:`ToolKit` once per toolkit, with one method per reference tool, of the same
name, class name and parameters as the reference (Python's own ``TypeError`` text for a bad call names them:
``AirlineTools.book_reservation() missing 1 required positional argument: 'insurance'``), and methods used only by
assertions. Tool names, types and schemas come from the reference's source (:mod:`.._tools`); the models the tools
build come from :attr:`ToolKit.models` (``self.models["Reservation"]``). :class:`Environment` subclasses may
override :meth:`Environment.sync_tools` (telecom does).

API (tool calls and messages may be objects with these attributes or plain dicts in tau2's JSON shape):

- ``env.get_response(call) -> (content: str, error: bool)``: ``call`` has ``name``, ``arguments`` and optionally
  ``requestor`` (``assistant`` | ``user``); errors read ``"Error: {exception}"``.
- ``env.set_state(initialization_data, initialization_actions, message_history, strict=True)``.
- ``env.run_env_function_call(call)`` / ``env.run_env_assertion(assertion, raise_assertion_error=True)``:
  ``env_type``, ``func_name``, ``arguments`` (``assert_value``, ``message``).
- ``env.get_db_hash()`` / ``env.get_user_db_hash()`` (None without that toolkit), ``env.is_mutating(name)``,
  ``env.policy``, ``env.tool_schemas()`` / ``env.user_tool_schemas()``, ``env.tools`` / ``env.user_tools``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from agentcompass.benchmarks.tau2._models import DomainModels, dict_hash, update_model_with_dict
from agentcompass.benchmarks.tau2._source import Tau2SourceError
from agentcompass.benchmarks.tau2._tools import EMPTY, ToolSpec, ToolType
from agentcompass.benchmarks.tau2.domains._replay import field_of, set_state
from agentcompass.benchmarks.tau2.shapes import ToolSchema

__all__ = ["Environment", "FreshDB", "ToolKit", "field_of", "to_json_str"]


class FreshDB:
    """A DB not built yet: ``build()`` makes it (validated anew, nothing shared), ``pristine_hash()`` is the hash of
    such a DB (the same for every one: computed once by whoever makes them)."""

    def __init__(self, build: Callable[[], Any], pristine_hash: Callable[[], str]) -> None:
        self.build, self.pristine_hash = build, pristine_hash


class ToolKit:
    """A domain's tools over its DB (``db``, a model built from the reference's source). ``db`` may be given as a
    :class:`FreshDB`: it is then built on first use, and the hash of a DB never used is the fresh DB's, without
    building one (a replayed transcript without writes, the most common case, builds no DB)."""

    def __init__(self, db: Any, specs: list[ToolSpec], models: DomainModels) -> None:
        self._db = db
        self.specs = {spec.name: spec for spec in specs}
        self.models = models

    @property
    def db(self) -> Any:
        if isinstance(self._db, FreshDB):
            self._db = self._db.build()
        return self._db

    @db.setter
    def db(self, value: Any) -> None:
        self._db = value

    @classmethod
    def check_signatures(cls, specs: list[ToolSpec]) -> None:
        """Raise :class:`Tau2SourceError` unless every reference tool has a method here with the same parameters
        (names, order, defaults), so that a reference change never goes unnoticed."""
        for spec in specs:
            method = getattr(cls, spec.name, None)
            if method is None:
                raise Tau2SourceError(f"{cls.__name__} has no method for the reference tool {spec.name}")
            ours = [(p.name, p.default) for p in list(inspect.signature(method).parameters.values())[1:]]
            theirs = [(p.name, inspect.Parameter.empty if p.default is EMPTY else p.default) for p in spec.params]
            if ours != theirs:
                raise Tau2SourceError(f"{cls.__name__}.{spec.name} parameters {ours} differ from {theirs}")

    @property
    def tools(self) -> dict[str, Callable[..., Any]]:
        return {name: getattr(self, name) for name in self.specs}

    def use_tool(self, tool_name: str, **kwargs: Any) -> Any:
        if tool_name not in self.tools:
            raise ValueError(f"Tool '{tool_name}' not found.")
        return self.tools[tool_name](**kwargs)

    def has_tool(self, tool_name: str) -> bool:
        return tool_name in self.tools

    def tool_type(self, tool_name: str) -> ToolType:
        return self.specs[tool_name].tool_type

    def tool_mutates_state(self, tool_name: str) -> bool:
        return self.specs[tool_name].mutates_state

    def schemas(self) -> list[ToolSchema]:
        """The OpenAI schemas of the tools the agent (or user) is shown: discoverable tools excluded."""
        return [spec.openai_schema for spec in self.specs.values() if not spec.discoverable]

    def update_db(self, update_data: dict[str, object] | None = None) -> None:
        if update_data is None:
            update_data = {}
        if self.db is None:
            raise ValueError("Database has not been initialized.")
        self.db = update_model_with_dict(self.db, update_data)

    def get_db_hash(self) -> str:
        if isinstance(self._db, FreshDB):
            return self._db.pristine_hash()
        return dict_hash(self.db.model_dump())

    def get_statistics(self) -> dict[str, int]:
        counts = {t: sum(self.tool_type(name) == t for name in self.tools) for t in ToolType}
        return {"num_tools": len(self.tools), **{f"num_{t.value}_tools": n for t, n in counts.items()}}


def _process(resp: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(resp, BaseModel):
        return resp.model_dump()
    if isinstance(resp, str) or resp is None:
        return resp
    if isinstance(resp, (int, float, bool)):
        return str(resp)
    if isinstance(resp, list):
        return [_process(item) for item in resp]
    if isinstance(resp, tuple):
        return tuple(_process(item) for item in resp)
    if isinstance(resp, dict):
        return {k: _process(v) for k, v in resp.items()}
    if isinstance(resp, (datetime, date)):
        return resp.isoformat()
    raise ValueError(f"Unsupported type: {type(resp)}")


def to_json_str(resp: Any) -> str:
    """``Environment.to_json_str`` of the reference: a string unchanged, anything else processed and dumped."""
    if not isinstance(resp, str):
        return json.dumps(_process(resp), default=str)
    return resp


class Environment:
    """A domain's environment: agent tools, optional user tools, the policy text."""

    def __init__(
        self,
        domain_name: str,
        policy: str,
        tools: ToolKit | None = None,
        user_tools: ToolKit | None = None,
        solo_mode: bool = False,
    ) -> None:
        self.domain_name, self.policy = domain_name, policy
        self.tools, self.user_tools, self.solo_mode = tools, user_tools, solo_mode
        if self.solo_mode:
            self.validate_solo_mode()
        self.sync_tools()

    def tool_schemas(self) -> list[ToolSchema]:
        if self.tools is None:
            raise ValueError("Tools not available")
        return self.tools.schemas()

    def user_tool_schemas(self) -> list[ToolSchema]:
        if self.user_tools is None:
            raise ValueError("User tools not available")
        return self.user_tools.schemas()

    def validate_solo_mode(self) -> None:
        assert self.tools is not None
        user = set(self.user_tools.specs) if self.user_tools is not None else set()
        overlap = set(self.tools.specs) & user
        if overlap:
            raise ValueError(f"Tool names overlap: {overlap}")

    def _has_tool(self, tool_name: str) -> bool:
        return any(kit is not None and kit.has_tool(tool_name) for kit in (self.tools, self.user_tools))

    def is_mutating(self, tool_name: str) -> bool:
        """Whether a tool changes state (replayed by ``set_state``); True for a tool that is not known."""
        for kit in (self.tools, self.user_tools):
            if kit is not None and kit.has_tool(tool_name):
                return kit.tool_mutates_state(tool_name)
        return True

    def use_tool(self, tool_name: str, **kwargs: Any) -> Any:
        if self.tools is None:
            raise ValueError("Tools not available")
        return self.tools.use_tool(tool_name=tool_name, **kwargs)

    def use_user_tool(self, tool_name: str, **kwargs: Any) -> Any:
        if self.user_tools is None:
            raise ValueError("User tools not available")
        return self.user_tools.use_tool(tool_name=tool_name, **kwargs)

    def make_tool_call(self, tool_name: str, requestor: str = "assistant", **kwargs: Any) -> Any:
        if requestor == "user":
            if self.solo_mode:
                raise ValueError("User tool calls are not allowed in solo mode")
            return self.use_user_tool(tool_name=tool_name, **kwargs)
        elif requestor == "assistant":
            if self.solo_mode and self.user_tools is not None and self.user_tools.has_tool(tool_name):
                return self.use_user_tool(tool_name=tool_name, **kwargs)
            return self.use_tool(tool_name=tool_name, **kwargs)
        raise ValueError(f"Invalid requestor: {requestor}")

    def sync_tools(self) -> None:
        """Hook run after every tool call and state change: keep user and agent state consistent (telecom)."""

    def get_response(self, call: Any) -> tuple[str, bool]:
        """Run a tool call: ``(content, error)`` as the reference's ToolMessage has them."""
        error = False
        try:
            arguments = field_of(call, "arguments") or {}
            requestor = field_of(call, "requestor", "assistant")
            resp = self.make_tool_call(field_of(call, "name"), requestor=requestor, **arguments)
            self.sync_tools()
        except Exception as e:
            resp = f"Error: {e}"
            error = True
        return to_json_str(resp), error

    def run_env_function_call(self, call: Any) -> Any:
        """Run any function of the agent's (``env_type: assistant``) or user's toolkit, then ``sync_tools``."""
        env_type, func_name = field_of(call, "env_type"), field_of(call, "func_name")
        if env_type == "user":
            tool_kit = self.user_tools
        elif env_type == "assistant":
            tool_kit = self.tools
        else:
            raise ValueError(f"Invalid environment type: {env_type}")
        func = getattr(tool_kit, func_name)
        if func is None:
            raise ValueError(f"Function {func_name} not found in {env_type} tools")
        res = func(**(field_of(call, "arguments") or {}))
        self.sync_tools()
        return res

    def run_env_assertion(self, assertion: Any, raise_assertion_error: bool = True) -> bool:
        res = self.run_env_function_call(assertion)
        if not isinstance(res, bool):
            raise ValueError(f"Function {field_of(assertion, 'func_name')} returned {type(res)} instead of bool")
        assert_pass: bool = res == field_of(assertion, "assert_value", True)
        if raise_assertion_error:
            assert assert_pass, field_of(assertion, "message") or f"Assertion failed: {assertion}"
        return assert_pass

    def get_db_hash(self) -> str | None:
        return None if self.tools is None else self.tools.get_db_hash()

    def get_user_db_hash(self) -> str | None:
        return None if self.user_tools is None else self.user_tools.get_db_hash()

    def set_state(
        self,
        initialization_data: Any,
        initialization_actions: list[Any] | None,
        message_history: list[Any],
        strict: bool = True,
    ) -> None:
        """Apply a task's initial state, then replay the mutating tool calls of ``message_history``."""
        set_state(self, initialization_data, initialization_actions, message_history, strict)
