"""Trajectories for the τ²-bench grading agreement tests, built from the real tasks: gold runs and their variants
(an action dropped, two swapped, an argument altered, communicated values wrong or missing, premature stops,
user-side calls), and a deterministic NL-assertion judge both sides script the same way.

``tool_output(call) -> (content, error)`` answers each call: a fixed text (for the checks that do not replay the
environment) or a real environment's answer."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from collections.abc import Callable
from typing import Any

from agentcompass.conversation import Message, ToolUse, Transcript

ToolOutput = Callable[[ToolUse], tuple[str, bool]]
PREMATURE = ("max_steps", "too_many_errors", "agent_error", "user_error", "harness_limit", None)
JUDGE_MODES = ("all_met", "hashed", "strings", "fewer", "empty")


def judge_reply(assertions: list[str], mode: str) -> str:
    """The scripted judge's reply for ``assertions``: a function of their texts only."""
    results = []
    for text in assertions:
        bit = int(hashlib.sha1(text.encode()).hexdigest(), 16) % 2 == 0
        met: Any = True if mode == "all_met" else bit
        if mode == "strings":
            met = "TRUE" if bit else "no"
        results.append({"expectedOutcome": text, "reasoning": f"judged {len(text)}", "metExpectation": met})
    if mode == "fewer":
        results = results[:1]
    if mode == "empty":
        results = []
    return json.dumps({"results": results})


def _with_commas(text: str) -> str:
    return re.sub(r"(\d)(\d{3})(?!\d)", r"\1,\2", text)


def _say(infos: list[str], style: str) -> str:
    body = "; ".join(infos)
    if style == "upper":
        return f"ALL DONE: {body.upper()}."
    if style == "commas":
        return f"Done. The figures: {_with_commas(body)}."
    return f"Done. Here is what you asked for: {body}."


def build_transcript(
    actions: list[dict[str, Any]],
    infos: list[str],
    tool_output: ToolOutput,
    *,
    termination: str | None = "user_stop",
    say_style: str = "plain",
    parallel: bool = False,
) -> Transcript:
    """A user opening, one tool call per action (or all in one message when ``parallel``) each answered, the
    communicated values in an assistant message, and the end."""
    tr = Transcript()
    tr.append(Message(role="assistant", content="Hi! How can I help you today?"))
    tr.append(Message(role="user", content="Hello, I need some help with my account."))
    calls = [
        ToolUse(
            id=f"call_{i}",
            name=a["name"],
            arguments=copy.deepcopy(a["arguments"]),
            requestor=a.get("requestor") or "assistant",
        )
        for i, a in enumerate(actions)
    ]
    groups: list[list[ToolUse]] = []
    for call in calls:  # parallel: consecutive calls of one side in one message
        if parallel and groups and groups[-1][0].requestor == call.requestor:
            groups[-1].append(call)
        else:
            groups.append([call])
    for group in groups:
        role = "user" if group[0].requestor == "user" else "assistant"
        tr.append(Message(role=role, content=None, tool_calls=group))
        for call in group:
            content, error = tool_output(call)
            tr.append(
                Message(role="tool", content=content, tool_call_id=call.id, requestor=call.requestor, error=error)
            )
    if infos:
        tr.append(Message(role="assistant", content=_say(infos, say_style)))
    tr.append(Message(role="assistant", content="Is there anything else?"))
    tr.append(Message(role="user", content="No, thanks. ###STOP###"))
    tr.termination = termination
    return tr


def _alter(actions: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]] | None:
    out = copy.deepcopy(actions)
    candidates = [i for i, a in enumerate(out) if a["arguments"]]
    if not candidates:
        return None
    a = out[rng.choice(candidates)]
    key = rng.choice(sorted(a["arguments"]))
    value = a["arguments"][key]
    if isinstance(value, bool):
        a["arguments"][key] = not value
    elif isinstance(value, int | float):
        a["arguments"][key] = value + 1
    elif isinstance(value, list):
        a["arguments"][key] = value[:-1] if value else ["x"]
    else:
        a["arguments"][key] = f"{value}_x"
    return out


def _wrong(infos: list[str]) -> list[str]:
    return [
        re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), s) if re.search(r"\d", s) else s + "zz" for s in infos
    ]


def variants(task: dict[str, Any], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """(name, build kwargs) of the trajectories of one task."""
    crit = task.get("evaluation_criteria") or {}
    actions = list(crit.get("actions") or [])
    infos = list(crit.get("communicate_info") or [])
    out: list[tuple[str, dict[str, Any]]] = [("gold", {"actions": actions, "infos": infos})]
    out.append(("gold_parallel_commas", {"actions": actions, "infos": infos, "parallel": True, "say_style": "commas"}))
    out.append(
        (
            "gold_upper_agent_stop",
            {"actions": actions, "infos": infos, "say_style": "upper", "termination": "agent_stop"},
        )
    )
    if actions:
        drop = rng.randrange(len(actions))
        out.append(("dropped", {"actions": actions[:drop] + actions[drop + 1 :], "infos": infos}))
    if len(actions) > 1:
        i, j = rng.sample(range(len(actions)), 2)
        swapped = list(actions)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append(("reordered", {"actions": swapped, "infos": infos}))
    altered = _alter(actions, rng)
    if altered is not None:
        out.append(("altered", {"actions": altered, "infos": infos}))
    if infos:
        out.append(("wrong_info", {"actions": actions, "infos": _wrong(infos)}))
        out.append(("missing_info", {"actions": actions, "infos": infos[:-1]}))
    stop = rng.choice(PREMATURE)
    out.append((f"premature_{stop}", {"actions": actions[: len(actions) // 2], "infos": [], "termination": stop}))
    return out


def cases(tasks: dict[str, list[dict[str, Any]]], seed: int = 7) -> list[dict[str, Any]]:
    """Every variant of every task: ``{domain, task, name, kwargs, judge_mode}``."""
    rng = random.Random(seed)
    out = []
    for domain, domain_tasks in tasks.items():
        for task in domain_tasks:
            for name, kwargs in variants(task, rng):
                out.append(
                    {
                        "domain": domain,
                        "task": task,
                        "name": name,
                        "kwargs": kwargs,
                        "judge_mode": rng.choice(JUDGE_MODES),
                    }
                )
    return out


def live_output(env: Any) -> ToolOutput:
    """Each call answered by ``env`` (already in the task's initial state), in order, as a conversation runs."""

    def answer(call: ToolUse) -> tuple[str, bool]:
        content, error = env.get_response(call)
        return content, error

    return answer


def initial_env(factory: Callable[[], Any], task: dict[str, Any]) -> Any:
    """A fresh environment in the task's initial state."""
    state = task.get("initial_state") or {}
    env = factory()
    env.set_state(state.get("initialization_data"), state.get("initialization_actions"), [])
    return env
