"""Replies per task in the scripted server: the marker picks the task, the request's assistant turns the reply,
so concurrent conversations never take each other's replies; ``--script`` takes a shipped example by name."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentcompass.errors import ConfigError
from agentcompass.testing.scripted_server import ScriptedModelServer
from agentcompass.testing.scripted_server.keyed import opening_text, turn_index
from agentcompass.testing.scripted_server.script import EXAMPLES_DIR, examples, load_yaml

REPO = Path(__file__).resolve().parents[2]
CHAT, RESPONSES, MESSAGES = "/chat/completions", "/responses", "/messages"


def post(base_url: str, path: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        base_url + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def chat_text(body: dict) -> str:
    return body["choices"][0]["message"]["content"]


def test_each_protocol_counts_assistant_turns_and_finds_the_opening_text() -> None:
    chat = {
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "task A"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
            {"role": "tool", "content": "out"},
            {"role": "assistant", "content": "x"},
            {"role": "user", "content": "later user text"},
        ]
    }
    messages = {
        "system": [{"type": "text", "text": "sys"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "task A"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "out"}]},
            {"role": "assistant", "content": "x"},
        ],
    }
    responses = {
        "instructions": "sys",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "task A"}]},
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "t"}]},
            {"type": "function_call", "call_id": "1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "1", "output": "out"},
            {"type": "function_call", "call_id": "2", "name": "f", "arguments": "{}"},
        ],
    }
    for body in (chat, messages, responses):
        assert turn_index(body) == 2, body
        assert opening_text(body) == "sys\ntask A", body
    assert turn_index({"input": "task A"}) == 0 and opening_text({"input": "task A"}) == "task A"


def conversation(base_url: str, path: str, marker: str, n_turns: int, out: list, jitter: random.Random) -> None:
    """One task's conversation: each request carries the replies received so far as assistant turns."""
    messages: list[dict] = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": marker}]
    for _ in range(n_turns):
        status, body = post(base_url, path, {"model": "m", "messages": messages})
        assert status == 200, body
        text = chat_text(body)
        out.append(text)
        messages += [{"role": "assistant", "content": text}, {"role": "user", "content": f"observation after {text}"}]
        threading.Event().wait(jitter.random() * 0.01)


def test_concurrent_tasks_each_get_their_own_replies_in_order() -> None:
    n_tasks, n_turns = 12, 5
    tasks = {f"instruction of task {i:02d}": [f"t{i}-r{j}" for j in range(n_turns)] for i in range(n_tasks)}
    tasks["instruction of task 0"] = ["never: the longer marker 'instruction of task 00' wins"]  # a prefix marker
    got: dict[int, list[str]] = {i: [] for i in range(n_tasks)}
    with ScriptedModelServer(tasks=tasks, latency_s=0.002) as srv:
        threads = [
            threading.Thread(
                target=conversation,
                args=(
                    srv.base_url,
                    CHAT,
                    f"Please do this: instruction of task {i:02d}.",
                    n_turns,
                    got[i],
                    random.Random(i),
                ),
            )
            for i in range(n_tasks)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert srv.max_concurrency > 1  # the conversations did overlap
        assert srv.n_replies_used == n_tasks * n_turns
    assert got == {i: tasks[f"instruction of task {i:02d}"] for i in range(n_tasks)}


def test_a_retried_request_gets_the_same_reply_and_the_end_of_a_list_names_the_task() -> None:
    with ScriptedModelServer(tasks={"alpha": ["a1", "a2"]}) as srv:
        first = {"model": "m", "messages": [{"role": "user", "content": "alpha"}]}
        assert chat_text(post(srv.base_url, CHAT, first)[1]) == "a1"
        assert chat_text(post(srv.base_url, CHAT, first)[1]) == "a1"
        third = {"model": "m", "messages": first["messages"] + [{"role": "assistant", "content": "x"}] * 2}
        status, body = post(srv.base_url, CHAT, third)
        assert status == 500 and "'alpha' has 2 replies" in body["error"]["message"]
        assert "needs reply #3" in body["error"]["message"]
        status, body = post(srv.base_url, CHAT, {"model": "m", "messages": [{"role": "user", "content": "beta"}]})
        assert status == 500 and "no marker" in body["error"]["message"] and "beta" in body["error"]["message"]
    with ScriptedModelServer(tasks={"alpha": ["a1"]}, default_reply="fallback") as srv:
        other = {"model": "m", "messages": [{"role": "user", "content": "beta"}]}
        assert chat_text(post(srv.base_url, CHAT, other)[1]) == "fallback"


def test_a_script_has_replies_or_tasks_and_valid_replies() -> None:
    with pytest.raises(ConfigError, match="not both"):
        ScriptedModelServer(replies=["x"], tasks={"a": ["y"]})
    with pytest.raises(ConfigError, match="list of replies"):
        ScriptedModelServer(tasks={"a": "y"})  # type: ignore[dict-item]
    with pytest.raises(ConfigError, match=r"tasks\['a'\] reply #2: unknown key"):
        ScriptedModelServer(tasks={"a": ["ok", {"txt": "typo"}]})


def test_the_examples_are_shipped_and_load_by_name() -> None:
    assert examples() == ["mini_swe_agent", "terminus2", "tool_agent"]
    for name in examples():
        data = load_yaml(name)
        assert data == load_yaml(EXAMPLES_DIR / f"{name}.yaml") and data["tasks"], name
        ScriptedModelServer(**data)  # every reply is valid
    for reply in (r for replies in load_yaml("terminus2")["tasks"].values() for r in replies):
        assert isinstance(json.loads(reply)["commands"], list)  # Terminus-2 replies are JSON documents


@pytest.mark.parametrize("value", ["replies.yaml", "terminus3", "examples/terminus2.yaml"])
def test_a_bad_script_value_exits_2_with_one_line_naming_it(tmp_path: Path, value: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentcompass.testing.scripted_server", "--port", "0", "--script", value],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and repr(value) in lines[0], proc.stderr
    assert all(name in lines[0] for name in examples())
