"""Helpers of the τ²-bench domain agreement tests: the scripts run in the reference venv (one batch each), the calls
replayed on both sides (each task's gold actions, then perturbed calls that take the error paths), and our side of
the same replay."""

from __future__ import annotations

import copy
import re
from typing import Any

DOMAINS = ("airline", "retail")

SCHEMAS_SCRIPT = r"""
import importlib, inspect, json, sys
from pydantic import BaseModel
from tau2.data_model.tasks import EnvAssertion, EnvFunctionCall
from tau2.environment.environment import Environment

def function_calls(env, calls):
    results = []
    for call in calls:
        try:
            if "assert_value" in call:
                res = env.run_env_assertion(EnvAssertion(**call), raise_assertion_error=False)
            else:
                res = env.run_env_function_call(EnvFunctionCall(**call))
            results.append([Environment.to_json_str(res), None])
        except Exception as e:
            results.append([type(e).__name__, str(e)])
    return results

out = {}
payload = json.load(sys.stdin)
for domain in payload["domains"]:
    mod = importlib.import_module(f"tau2.domains.{domain}.data_model")
    env = importlib.import_module(f"tau2.domains.{domain}.environment").get_environment()
    models = {n: c.model_json_schema() for n, c in vars(mod).items()
              if inspect.isclass(c) and issubclass(c, BaseModel) and c.__module__ == mod.__name__}
    tools = [{"schema": t.openai_schema, "type": env.tools.tool_type(t.name).value,
              "mutates": env.tools.tool_mutates_state(t.name)} for t in env.get_tools()]
    out[domain] = {"models": models, "tools": tools, "policy": env.get_policy(), "db_hash": env.get_db_hash(),
                   "function_calls": function_calls(env, payload["function_calls"][domain])}
print(json.dumps(out))
"""

REPLAY_SCRIPT = r"""
import importlib, json, sys
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage
from tau2.data_model.tasks import EnvFunctionCall, InitializationData
payload = json.load(sys.stdin)
get_environment = importlib.import_module(f"tau2.domains.{payload['domain']}.environment").get_environment

def initial(env, state):
    state = state or {}
    data = state.get("initialization_data")
    actions = state.get("initialization_actions")
    env.set_state(InitializationData(**data) if data else None,
                  [EnvFunctionCall(**a) for a in actions] if actions is not None else None, [])

def run(env, calls):
    results = []
    for i, call in enumerate(calls):
        msg = env.get_response(ToolCall(id=f"call_{i}", **call))
        results.append([msg.content, msg.error])
    return results

out = []
for task in payload["tasks"]:
    env = get_environment()
    initial(env, task["initial_state"])
    hashes = [env.get_db_hash() if task["initial_state"] else None]
    gold = run(env, task["gold"])
    hashes.append(env.get_db_hash())
    perturbed = run(env, task["perturbed"])
    hashes.append(env.get_db_hash())
    hashes.append(None)
    if any(env._is_mutating_tool(call["name"]) for call in task["gold"]):
        replayed = get_environment()
        history = []
        for i, (call, (content, error)) in enumerate(zip(task["gold"], gold)):
            history.append(AssistantMessage(role="assistant", tool_calls=[ToolCall(id=f"call_{i}", **call)]))
            history.append(ToolMessage(id=f"call_{i}", role="tool", content=content, error=error))
        replayed.set_state(None, None, history)
        hashes[-1] = replayed.get_db_hash()
    out.append({"gold": gold, "perturbed": perturbed, "hashes": hashes})
print(json.dumps(out))
"""

FUNCTION_CALLS = {
    "airline": [
        {"env_type": "assistant", "func_name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}},
        {
            "env_type": "assistant",
            "func_name": "get_flight_status",
            "arguments": {"flight_number": "HAT001", "date": "2024-05-16"},
        },
        {"env_type": "assistant", "func_name": "_get_new_reservation_id", "arguments": {}},
        {"env_type": "assistant", "func_name": "no_such_function", "arguments": {}},
        {"env_type": "user", "func_name": "get_user_details", "arguments": {}},
        {"env_type": "assistant", "func_name": "calculate", "arguments": {"expression": "1/0"}},
        {
            "env_type": "assistant",
            "func_name": "get_flight_status",
            "assert_value": True,
            "arguments": {"flight_number": "HAT001", "date": "2024-05-16"},
        },
    ],
    "retail": [
        {"env_type": "assistant", "func_name": "find_user_id_by_email", "arguments": {"email": "nope@example.com"}},
        {"env_type": "assistant", "func_name": "list_all_product_types", "arguments": {}},
        {"env_type": "assistant", "func_name": "_get_item", "arguments": {"item_id": "1008292230"}},
        {"env_type": "assistant", "func_name": "get_user_details", "arguments": {"user_id": 3}},
        {"env_type": "assistant", "func_name": "calculate", "arguments": {"expression": "import os"}},
        {"env_type": "assistant", "func_name": "calculate", "arguments": {"expression": "(1"}},
    ],
}


def function_calls_ours(env: Any, calls: list[dict[str, Any]]) -> list[list[Any]]:
    """Our side of ``function_calls`` in SCHEMAS_SCRIPT."""
    from agentcompass.benchmarks.tau2.domains._base import to_json_str

    results: list[list[Any]] = []
    for call in calls:
        try:
            if "assert_value" in call:
                res = env.run_env_assertion(call, raise_assertion_error=False)
            else:
                res = env.run_env_function_call(call)
            results.append([to_json_str(res), None])
        except Exception as e:
            results.append([type(e).__name__, str(e)])
    return results


_PYDANTIC_DOCS = re.compile(r"errors\.pydantic\.dev/\d+\.\d+/")


def normalize(content: str) -> str:
    """Content with pydantic's versioned documentation links made version-free: the reference venv's pydantic and
    ours may differ in minor version, which only changes that link inside validation errors."""
    return _PYDANTIC_DOCS.sub("errors.pydantic.dev/VERSION/", content)


def gold_calls(task: dict[str, Any]) -> list[dict[str, Any]]:
    actions = (task.get("evaluation_criteria") or {}).get("actions") or []
    return [
        {"name": a["name"], "arguments": a.get("arguments") or {}, "requestor": a.get("requestor") or "assistant"}
        for a in actions
    ]


def _wrong_type(value: Any) -> Any:
    if isinstance(value, str):
        return 12345
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, list):
        return "not-a-list"
    return [value]


def perturbed_calls(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls that take the error paths: an unknown id (every ``*_id`` string argument in turn), a missing argument,
    an argument of the wrong type (each argument in turn), an unexpected argument, an unknown tool, a user call."""
    calls: list[dict[str, Any]] = []
    for call in gold:
        args = call["arguments"]
        for key, value in args.items():
            if key.endswith("_id") and isinstance(value, str):
                calls.append({**call, "arguments": {**args, key: value + "_unknown"}})
            calls.append({**call, "arguments": {**args, key: _wrong_type(copy.deepcopy(value))}})
        if args:
            calls.append({**call, "arguments": dict(list(args.items())[1:])})
        calls.append({**call, "arguments": {**args, "unexpected": 1}})
        calls.append({**call, "name": call["name"] + "_unknown"})
        calls.append({**call, "requestor": "user"})
    return calls


def replay_ours(factory: Any, task: dict[str, Any]) -> dict[str, Any]:
    """Our side of REPLAY_SCRIPT for one task (same calls, same order, same fresh environments). ``hashes``: the DB's
    after the initial state (tasks that have one), after the gold actions, after the perturbed calls, and after
    ``set_state`` replays the gold calls as a message history (tasks with a mutating gold action)."""
    env = factory()
    state = task["initial_state"] or {}
    env.set_state(state.get("initialization_data"), state.get("initialization_actions"), [])
    hashes: list[str | None] = [env.get_db_hash() if task["initial_state"] else None]
    gold = [list(env.get_response({"id": f"call_{i}", **c})) for i, c in enumerate(task["gold"])]
    hashes.append(env.get_db_hash())
    perturbed = [list(env.get_response({"id": f"call_{i}", **c})) for i, c in enumerate(task["perturbed"])]
    hashes.append(env.get_db_hash())
    hashes.append(None)
    if not any(env.is_mutating(call["name"]) for call in task["gold"]):
        return {"gold": gold, "perturbed": perturbed, "hashes": hashes}
    history: list[dict[str, Any]] = []
    for i, (call, (content, error)) in enumerate(zip(task["gold"], gold, strict=True)):
        history.append({"role": "assistant", "tool_calls": [{"id": f"call_{i}", **call}]})
        history.append({"role": "tool", "id": f"call_{i}", "content": content, "error": error})
    replayed = factory()
    replayed.set_state(None, None, history)
    hashes[-1] = replayed.get_db_hash()
    return {"gold": gold, "perturbed": perturbed, "hashes": hashes}
