"""The reference solution of a τ²-bench task, as the agent messages the ``oracle`` harness sends: every gold action
of ``evaluation_criteria.actions`` in order, one call a message (the agent's calls as the agent's; the user's own
calls, telecom's, marked ``requestor: user``, which a conversation without a simulated user runs on the user's side),
then one message holding every value of ``communicate_info``. The oracle then stops (``agent_stop``)."""

from __future__ import annotations

from .shapes import Tau2Task


def reference_messages(task: Tau2Task) -> list[dict[str, object]]:
    """The oracle's messages for ``task`` (its JSON object); ``[]`` for a task without evaluation criteria."""
    criteria = task.get("evaluation_criteria") or {}
    messages: list[dict[str, object]] = []
    for i, action in enumerate(criteria.get("actions") or []):
        call = {
            "id": f"oracle-{i}",
            "name": action["name"],
            "arguments": dict(action.get("arguments") or {}),
            "requestor": action.get("requestor") or "assistant",
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    info = [str(v) for v in criteria.get("communicate_info") or []]
    if info:
        messages.append({"role": "assistant", "content": "\n".join(info)})
    return messages
