"""The scripted replies that drive Gemini CLI with its own tools (``write_file``, ``run_shell_command``), as
:func:`tests.harnesses._installed.agent_support.script` does for the other agents."""

from __future__ import annotations

import json
from typing import Any

from tests.harnesses._installed import agent_support as support


def script(*, root: str | None = None):
    def reply(request: dict[str, Any]) -> dict[str, Any]:
        body = request["body"]
        text = json.dumps(body)
        if not body.get("tools") or support.CALL_ID in text:
            return {"text": "Done.", "usage": support.USAGE}
        if "stats.py" in text:
            name, args = "run_shell_command", {"command": support.FIX, "description": "Fix stats.py"}
        else:
            path = f"{support._workdir(text, root)}/hello.txt"
            name, args = "write_file", {"file_path": path, "content": support.HELLO}
        return {
            "text": "",
            "tool_calls": [{"id": support.CALL_ID, "name": name, "arguments": args}],
            "usage": support.USAGE,
        }

    return reply
