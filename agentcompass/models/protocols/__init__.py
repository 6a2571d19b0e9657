"""The model API protocols: one module each, found here or installed by a plug-in.

A protocol is one module. The bundled ones are the modules of this package (``openai_chat.py`` is
``openai-chat``); an installed package adds one through the ``agentcompass.model_protocols`` entry-point group
(the entry point's name is the protocol's, its value the module). Nothing is imported to list the names; a
module is imported the first time its protocol is used. What a module declares (docs/plugins.md):

- ``PROTOCOL`` (its name), ``PATH`` (the path after the base URL it posts to);
- ``make_client(base_url, api_key, timeout)`` and ``async call(client, model_id, messages, params, prices, tools)
  -> ModelResponse`` (the messages and tools arrive in the chat form; the module turns them into its own);
- ``FAMILY``: ``openai``, ``anthropic`` or ``google``, the convention of its key, base URL and authentication
  (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``Authorization: Bearer``, or the Anthropic or Gemini ones);
- ``url(base, model_id, stream, suffix) -> (url, query)`` (optional): where a forwarded request goes when the
  model (and the streaming) are in the URL, not the body (the Gemini API);
- ``KEY_ENV`` (optional, default its family's): the environment variable its API key is read from when
  ``model.api_key`` is not set (:func:`key_env`); every bundled protocol's is a secret of each run
  (:func:`key_envs`);
- ``RENAMES`` (optional): parameter names it takes under another name (``{"max_tokens": "max_output_tokens"}``;
  a dotted target nests the value: ``{"reasoning_effort": "reasoning.effort"}``);
- ``auto(base_url, model_id) -> bool`` (optional): whether ``api_protocol: auto`` tries it first for that
  endpoint (``openai-chat`` is always tried last);
- ``WIRE`` (optional, default its own name): the wire format of its JSON replies and streams, a bundled
  protocol's name; or, for a format of its own, the hooks ``tokens(body)``, ``summary(body)`` (the reply's facts,
  as :mod:`agentcompass.models._wire`), ``synthesize(body, **opts)``, ``Assembler`` and ``error_event(status,
  message)`` (as :mod:`agentcompass.models._streams`);
The model gateway serves agents the bundled protocols' APIs only (its routes, error bodies and translations
are per protocol pair, :mod:`agentcompass.gateway`); a plug-in protocol is one the gateway forwards to.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agentcompass.errors import ConfigError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "agentcompass.model_protocols"
FAMILY_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GEMINI_API_KEY",
}  # a family's key variable


@functools.cache
def _bundled() -> dict[str, str]:
    return {m.name.replace("_", "-"): f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)}


@functools.cache
def _installed() -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)}


def refresh() -> None:
    """Forget what was found (a package installed or put on ``sys.path`` since)."""
    for cached in (_bundled, _installed, module):
        cached.cache_clear()


def names() -> tuple[str, ...]:
    """Every protocol's name: the bundled ones, then the installed ones (sorted)."""
    bundled = _bundled()
    return (*bundled, *sorted(n for n in _installed() if n not in bundled))


def check(name: Any, where: str = "api_protocol") -> str:
    """``name`` when it is a protocol; a ConfigError listing the valid ones otherwise."""
    if not isinstance(name, str) or name not in _bundled() and name not in _installed():
        raise ConfigError(f"{where}={name!r}: unknown protocol; allowed: {', '.join(names())}")
    return name


@functools.cache
def module(name: str) -> ModuleType:
    """The module of protocol ``name`` (imported on first use)."""
    check(name)
    path = _bundled().get(name)
    try:
        mod = importlib.import_module(path) if path else _installed()[name].load()
    except ConfigError:
        raise
    except Exception as exc:
        raise ConfigError(f"model protocol {name!r} cannot be loaded: {exc}") from exc
    if not isinstance(mod, ModuleType) or getattr(mod, "PROTOCOL", None) != name:
        raise ConfigError(f"model protocol {name!r}: {mod!r} is not a module whose PROTOCOL is {name!r}")
    return mod


def family(name: str) -> str:
    """``openai``, ``anthropic`` or ``google``: the protocol's key, base URL and authentication convention."""
    return str(getattr(module(name), "FAMILY", "openai"))


def key_env(name: str) -> str:
    """The environment variable protocol ``name`` reads its API key from when ``model.api_key`` is not set."""
    return str(getattr(module(name), "KEY_ENV", None) or FAMILY_KEY_ENV[family(name)])


def key_envs() -> tuple[str, ...]:
    """The key variables of every bundled protocol (what the model layer may read from the environment)."""
    return tuple(dict.fromkeys(key_env(name) for name in _bundled()))


def renames(name: str) -> dict[str, str]:
    return dict(getattr(module(name), "RENAMES", {}))


def wire(name: str) -> str:
    """The bundled wire format the protocol's replies and streams are in (its own name for a format of its own)."""
    return str(getattr(module(name), "WIRE", name))


def auto_first(base_url: str | None, model_id: str) -> str | None:
    """The first protocol whose ``auto`` hook claims this endpoint (bundled ones first), None: none."""
    for name in names():
        hook = getattr(module(name), "auto", None)
        if hook is not None and hook(base_url, model_id):
            return name
    return None
