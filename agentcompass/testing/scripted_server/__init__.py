"""Scripted model server: a real HTTP server on 127.0.0.1 that speaks the OpenAI chat completions,
OpenAI Responses, Anthropic Messages and Gemini APIs from a script, records every request and injects faults.

From Python::

    from agentcompass.testing.scripted_server import ScriptedModelServer

    with ScriptedModelServer(replies=["hello", {"text": "cut", "finish_reason": "length"}],
                             faults=[{"kind": "429", "at": 1, "retry_after": 0.1}]) as srv:
        ...  # point a model at srv.base_url ("http://127.0.0.1:<port>/v1")
        srv.requests, srv.max_concurrency, srv.n_faults_injected

From a shell (stops on Ctrl-C / SIGTERM; ``--port 0`` picks a free port and prints it)::

    python -m agentcompass.testing.scripted_server --port 8765 --script replies.yaml
    python -m agentcompass.testing.scripted_server --port 8765 --script terminus2   # a shipped example

A reply file keys replies by task (``tasks``: marker text -> replies, :mod:`.keyed`) or lists them in order
(``replies``); docs/models.md shows the format.
"""

from .script import FaultPlan, Script, load_yaml, normalize_reply
from .server import ScriptedModelServer

__all__ = ["FaultPlan", "Script", "ScriptedModelServer", "load_yaml", "normalize_reply"]
