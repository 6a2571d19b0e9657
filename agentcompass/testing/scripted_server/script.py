"""Where replies come from (a list, a YAML file, a callable) and the fault schedule."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from agentcompass.errors import ConfigError

if TYPE_CHECKING:
    from .keyed import TaskScript

Reply = str | dict[str, Any]
ReplySource = list[Reply] | Callable[[dict[str, Any]], Reply] | str | Path | None

REPLY_KEYS = {
    "text",
    "finish_reason",
    "usage",
    "status",
    "headers",
    "body",
    "error",
    "code",
    "delay_s",
    "tool_calls",
    "drop_after_events",
    "event_delay_s",
    "end_delay_s",
}
TOOL_CALL_KEYS = {"id", "name", "arguments", "namespace"}  # namespace: a Responses call's tool namespace
FAULT_KEYS = {"kind", "at", "every", "retry_after", "retry_after_ms", "delay_s", "path"}
_FAULT_WORDS = {"drop", "slow", "malformed"}


class ScriptedCall(TypedDict):
    """A tool call of a scripted reply: ``name``, ``arguments`` (JSON text), ``id`` (None: one is made up when
    served) and a Responses call's ``namespace``."""

    id: str | None
    name: str
    arguments: str
    namespace: NotRequired[str]


def normalize_reply(item: Reply, where: str = "reply") -> dict[str, Any]:
    """A reply as a dict with the keys in ``REPLY_KEYS``; a bare string is ``{"text": item}``."""
    if isinstance(item, str):
        return {"text": item}
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: {item!r} is not a string or a mapping with keys {sorted(REPLY_KEYS)}")
    unknown = set(item) - REPLY_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; valid keys: {sorted(REPLY_KEYS)}")
    reply = dict(item)
    if "tool_calls" in reply:
        reply["tool_calls"] = _tool_calls(reply["tool_calls"], where)
    return reply


class ServedCall(TypedDict):
    """A scripted tool call as served: its ``id`` given or made up."""

    id: str
    name: str
    arguments: str
    namespace: NotRequired[str]


def _tool_calls(calls: Any, where: str) -> list[ScriptedCall]:
    """``[{name, arguments (a JSON string, or a mapping serialized here), id?}]`` in a reply."""
    if not isinstance(calls, list):
        raise ConfigError(f"{where}: tool_calls must be a list of {{name, arguments, id}}, got {calls!r}")
    out = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or set(call) - TOOL_CALL_KEYS:
            raise ConfigError(
                f"{where}: tool_calls[{i}]={call!r}: expected a mapping with 'name' (a string), "
                f"'arguments' (a string or a mapping) and optionally 'id' and 'namespace'"
            )
        args = call.get("arguments", {})
        shaped: ScriptedCall = {
            "id": call.get("id"),
            "name": call["name"],
            "arguments": args if isinstance(args, str) else json.dumps(args),
        }
        if call.get("namespace"):
            shaped["namespace"] = str(call["namespace"])
        out.append(shaped)
    return out


EXAMPLES_DIR = Path(__file__).parent / "examples"


def examples() -> list[str]:
    """The names of the reply files shipped in ``examples/`` (one per harness that takes a model)."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def resolve_script(value: str | Path) -> Path:
    """A script file: ``value`` as a path if it exists, else the shipped example of that name."""
    path = Path(value)
    if path.is_file():
        return path
    if isinstance(value, str) and value in examples():
        return EXAMPLES_DIR / f"{value}.yaml"
    raise ConfigError(
        f"--script {str(value)!r}: no such file, and no example of that name (examples: {', '.join(examples())})"
    )


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a script file (a path, or the name of a shipped example): a list of replies, or a mapping with
    ``replies`` or ``tasks`` (and ``faults``, ``default_reply``...)."""
    import yaml

    path = resolve_script(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"script file {str(path)!r} cannot be read: {' '.join(str(exc).split())}") from None
    if isinstance(data, list):
        return {"replies": data}
    if isinstance(data, dict):
        return data
    raise ConfigError(f"script file {str(path)!r}: expected a list of replies or a mapping with 'replies' or 'tasks'")


class Script:
    """Hands out replies: a list in order (thread-safe), a callable asked for each request, or with ``tasks`` (a
    mapping of marker text to replies) each task's own list at the request's position (:mod:`.keyed`)."""

    def __init__(
        self, source: ReplySource, default_reply: Reply | None = None, tasks: dict[str, list[Reply]] | None = None
    ) -> None:
        if isinstance(source, (str, Path)):
            data = load_yaml(source)
            source, tasks = data.get("replies", []), data.get("tasks", tasks)
        if tasks is not None and source:
            raise ConfigError(
                "a script has either 'replies' (one list, in order) or 'tasks' (a list per task), not both"
            )
        self._callable = source if callable(source) else None
        items = [] if source is None or callable(source) or isinstance(source, (str, Path)) else list(source)
        self._items = [normalize_reply(r, f"reply #{i + 1}") for i, r in enumerate(items)]
        self._default = normalize_reply(default_reply, "default_reply") if default_reply is not None else None
        self._next = 0
        self._lock = threading.Lock()
        self._tasks: TaskScript | None = None
        if tasks is not None:
            from .keyed import TaskScript

            self._tasks = TaskScript(tasks, self._default, normalize_reply)

    def next(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply for ``request``; when a list is used up: the default reply, else a 500 saying so."""
        if self._callable is not None:
            return normalize_reply(self._callable(request), "reply from callable")
        if self._tasks is not None:
            return self._tasks.next(request)
        with self._lock:
            index = self._next
            self._next += 1
        if index < len(self._items):
            return self._items[index]
        if self._default is not None:
            return self._default
        return {
            "status": 500,
            "headers": {"x-should-retry": "false"},
            "code": "script_exhausted",
            "error": f"scripted server: reply script exhausted (request needed reply #{index + 1}, "
            f"the script has {len(self._items)})",
        }

    @property
    def n_used(self) -> int:
        if self._tasks is not None:
            return self._tasks.n_used
        return min(self._next, len(self._items))


def _check_fault(spec: dict[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(spec, dict) or "kind" not in spec:
        raise ConfigError(f"{where}: {spec!r} must be a mapping with a 'kind'")
    unknown = set(spec) - FAULT_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; valid keys: {sorted(FAULT_KEYS)}")
    kind = str(spec["kind"])
    if kind not in _FAULT_WORDS and not (kind.isdigit() and len(kind) == 3):
        raise ConfigError(
            f"{where}: kind={kind!r}; allowed: an HTTP status such as '429' or '500', or one of {sorted(_FAULT_WORDS)}"
        )
    return {**spec, "kind": kind}


class FaultPlan:
    """Decides, for the n-th request (1-based), which fault to inject, if any.

    Scheduled faults: ``{"kind": "429", "at": 3}`` (request 3; ``at`` may be a list),
    ``{"kind": "500", "every": 5}`` (requests 5, 10, ...), ``{"kind": "drop"}`` (every request).
    Random faults: each request fails with probability ``rate``, kind drawn from ``kinds`` (seeded).
    """

    def __init__(
        self,
        faults: list[dict[str, Any]] | None = None,
        rate: float = 0.0,
        kinds: list[str] | None = None,
        seed: int | None = 0,
    ) -> None:
        self.faults = [_check_fault(f, f"faults[{i}]") for i, f in enumerate(faults or [])]
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"fault_rate={rate!r}: expected a probability between 0 and 1")
        self.rate = rate
        self.kinds = [_check_fault({"kind": k}, "fault_kinds")["kind"] for k in (kinds or ["429", "500", "drop"])]
        self._rng = random.Random(seed)

    def pick(self, n: int, path: str) -> dict[str, Any] | None:
        """The fault for request ``n`` to ``path`` (call under the server's lock: the RNG is shared)."""
        for fault in self.faults:
            if fault.get("path") not in (None, path):
                continue
            at, every = fault.get("at"), fault.get("every")
            if at is not None and n in (at if isinstance(at, list) else [at]):
                return fault
            if every is not None and n % int(every) == 0:
                return fault
            if at is None and every is None:
                return fault
        if self.rate and self._rng.random() < self.rate:
            return {"kind": self._rng.choice(self.kinds)}
        return None
