"""The scripted conversations that drive the real agent programs through the gateway, and the run helper.

Each agent gets replies that make ITS OWN tool calls (names and argument shapes of its published tool set): write
``hello.txt`` with its file-writing tool (an absolute path, read from the request: the task's workdir as the
agent announces it), fix ``stats.py`` with its shell tool; then, once the call's result is in the conversation, a
final text. A request without tools (a session title, a summary) is answered with plain text. Every reply carries
the same usage, so an attempt's expected usage is the number of requests the server answered times it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agentcompass import run_evaluation
from agentcompass.kit import default_data_dir

USAGE = {"input_tokens": 100, "output_tokens": 10}
CALL_ID = "call_ac_1"
SUBMIT_ID = "call_ac_submit"
KEY = "sk-PLANTED-agents-key-4242"
PROTOCOL = {
    "claude_code": "anthropic-messages",
    "codex": "openai-responses",
    "opencode": "openai-chat",
    "qwen_code": "openai-chat",
    "gemini_cli": "google-genai",
    "pi": "openai-chat",
    "cline": "openai-chat",
    "kilo": "openai-chat",
    "aider": "openai-chat",
    "openhands": "openai-chat",
}
FIX = (
    "sed -i -e 's/count = len(numbers) - 1/count = len(numbers)/' -e 's|sum(numbers) // count|sum(numbers) / count|' "
    "-e 's/max={min(numbers)}/max={max(numbers)}/' stats.py && python3 stats.py numbers.txt"
)
HELLO = "Hello, world!\n"
SECRET = (
    "python3 -c \"import urllib.request as u; print(u.urlopen('http://web:8000/secret.txt').read().decode().strip())\""
)


def agent_cache() -> Path:
    """Where the agents' builds are cached for the whole test session (CI warms it with the fetch command)."""
    return Path(os.environ.get("AGENTCOMPASS_AGENT_CACHE") or default_data_dir())


def _workdir(text: str, root: str | None) -> str:
    """The task's workdir as the agent states it in its prompt (docker: /app; local: <root>/<workspace>/app)."""
    if not root:
        return "/app"
    found = re.findall(re.escape(root) + r"/[^/\s\"'\\<>]+/app\b", text)
    return found[0] if found else "/app"


def _write(agent: str, path: str) -> tuple[str, dict[str, Any]]:
    if agent == "claude_code":
        return "Write", {"file_path": path, "content": HELLO}
    if agent == "opencode":
        return "write", {"filePath": path, "content": HELLO}
    if agent in ("qwen_code", "gemini_cli"):
        return "write_file", {"file_path": path, "content": HELLO}
    if agent == "pi":
        return "write", {"path": path, "content": HELLO}
    if agent == "kilo":
        return "write", {"filePath": path, "content": HELLO}
    if agent == "cline":
        return "editor", {"path": path, "new_text": HELLO}
    return "exec_command", {"cmd": f"printf 'Hello, world!\\n' > {path}"}


def _shell(agent: str, command: str) -> tuple[str, dict[str, Any]]:
    return {
        "claude_code": ("Bash", {"command": command, "description": "Fix stats.py"}),
        "opencode": ("bash", {"command": command, "description": "Fix stats.py"}),
        "qwen_code": ("run_shell_command", {"command": command, "description": "Fix stats.py"}),
        "gemini_cli": ("run_shell_command", {"command": command, "description": "Fix stats.py"}),
        "pi": ("bash", {"command": command}),
        "cline": ("run_commands", {"commands": [command]}),
        "kilo": ("bash", {"command": command, "description": "Fix stats.py"}),
    }.get(agent, ("exec_command", {"cmd": command}))


def script(agent: str, *, act: bool = True, root: Path | str | None = None):
    """The reply function for the scripted server (``act=False``: an agent told only to stop, which solves
    nothing)."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        body = request["body"]
        text = json.dumps(body)
        if agent == "cline" and act and CALL_ID in text and SUBMIT_ID not in text:  # Cline ends with this tool
            args = {"summary": "Done: " + HELLO, "verified": True}
            call = {"id": SUBMIT_ID, "name": "submit_and_exit", "arguments": args}
            return {"text": "", "tool_calls": [call], "usage": USAGE}
        if not body.get("tools") or not act or CALL_ID in text:
            return {"text": "Done.", "usage": USAGE}
        if "stats.py" in text:
            name, args = _shell(agent, FIX)
        elif "web:8000/secret.txt" in text:  # the compose task: a side service holds the answer
            name, args = _shell(agent, f"{SECRET} > /app/answer.txt")
        else:
            name, args = _write(agent, f"{_workdir(text, str(root) if root else None)}/hello.txt")
        return {"text": "", "tool_calls": [{"id": CALL_ID, "name": name, "arguments": args}], "usage": USAGE}

    return reply


def run(agent: str, environment: str, server: Any, tmp_path: Path, tasks: list[str], **kw: Any) -> dict[str, Any]:
    """``run_evaluation`` of the demo ``tasks`` with ``agent`` on the scripted server (through the gateway)."""
    params = dict(kw.pop("environment_params", {}))
    if environment == "local":
        params.setdefault("root_dir", str(tmp_path / "ws"))
    else:
        from tests.environments.docker_support import TEST_LABELS

        params.setdefault("labels", dict(TEST_LABELS))
    return run_evaluation(
        benchmark=kw.pop("benchmark", "demo"),
        harness=agent,
        environment=environment,
        model="scripted-model",
        benchmark_params=kw.pop("benchmark_params", {"sample_ids": tasks}),
        harness_params=kw.pop("harness_params", {}),
        model_base_url=server.base_url,
        model_api_key=kw.pop("api_key", KEY),
        model_api_protocol=kw.pop("protocol", PROTOCOL[agent]),
        environment_params=params,
        results_dir=str(tmp_path / "results"),
        data_dir=str(agent_cache()),
        auto_install_dependencies=True,
        progress="none",
        **kw,
    )


def attempts(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """task id -> its (last) attempt's result.json."""
    out = {}
    for path in sorted((tmp_path / "results").rglob("result.json")):
        data = json.loads(path.read_text())
        out[data.get("task_id") or path.parts[path.parts.index("tasks") + 1]] = {**data, "_dir": str(path.parent)}
    return out


def gateway_calls(attempt_dir: str) -> list[dict[str, Any]]:
    path = Path(attempt_dir) / "model_calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def _tool_names(tools: Any, namespace: str = "") -> list[tuple[str, str]]:
    """Every tool of a request's ``tools`` as (name, namespace): each protocol's form (``name``, ``function.name``),
    a Responses ``namespace`` tool's nested tools with its name (Codex's MCP servers)."""
    if isinstance(tools, list):
        return [n for t in tools for n in _tool_names(t, namespace)]
    if not isinstance(tools, dict):
        return []
    name = tools.get("name") if isinstance(tools.get("name"), str) else None
    if tools.get("type") == "namespace" and name:
        return _tool_names(tools.get("tools"), name)
    return ([(name, namespace)] if name else []) + _tool_names(tools.get("function"), namespace)


def _mcp_tool(tools: list[tuple[str, str]], bare: str) -> tuple[str, str] | None:
    """How the agent names the MCP server's tool ``bare`` (``mcp__agentcompass__add``, ``agentcompass_add``, ``add``
    in the namespace ``mcp__agentcompass``...)."""
    for name, namespace in tools:
        if name == bare or ("agentcompass" in name and name.endswith(bare)):
            return name, namespace
    return None


def conversation_script(steps: list[tuple[str, dict[str, Any]]]):
    """Replies that make the MCP calls ``steps`` (bare tool names) in order, one per request, then a final text;
    a request whose tools do not include the next step's tool is answered with text."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        body = request["body"]
        text = json.dumps(body)
        done = sum(1 for i in range(len(steps)) if f"call_mcp_{i}" in text)
        found = _mcp_tool(_tool_names(body.get("tools")), steps[done][0]) if done < len(steps) else None
        if found is None:
            return {"text": "Done.", "usage": USAGE}
        call = {"id": f"call_mcp_{done}", "name": found[0], "arguments": steps[done][1]}
        return {"text": "", "tool_calls": [{**call, "namespace": found[1]} if found[1] else call], "usage": USAGE}

    return reply
