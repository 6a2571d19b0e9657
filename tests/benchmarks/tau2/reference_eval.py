"""The reference side of the grading agreement tests: a script run in the tau2 reference venv. It reads
``{"cases": [...], "components": bool}``; each case holds a task (its JSON), a transcript (``Transcript.to_dict()``),
the reference termination reason and a judge mode. It builds the reference's ``Task`` and ``SimulationRun`` from
them, scripts the NL-assertion LLM call (patching ``generate`` inside ``tau2.evaluator.evaluator_nl_assertions``
only) and prints, per case, the ``RewardInfo.model_dump(mode="json")`` of ``evaluate_simulation`` (evaluation type
ALL) or of each component evaluator, and the messages the judge was sent.

Tool outputs that quote a pydantic validation error carry the URL of pydantic's docs, which names pydantic's
version (``errors.pydantic.dev/2.13/...``); the script rewrites it to the reference venv's own version, the one its
replay of the same call writes, so that the two pydantic installs do not make the strict replay differ."""

from __future__ import annotations

import inspect

from tests.benchmarks.tau2 import eval_cases

_BODY = r"""
import json, re, sys
import pydantic.version
import tau2.evaluator.evaluator_nl_assertions as nl_mod
from tau2.data_model.message import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.evaluator.evaluator_action import ActionEvaluator
from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
from tau2.utils.llm_utils import to_litellm_messages

payload = json.load(sys.stdin)
PYDANTIC_URL = "errors.pydantic.dev/" + pydantic.version.version_short() + "/"


def same_pydantic(text):
    return None if text is None else re.sub(r"errors\.pydantic\.dev/[0-9.]+/", PYDANTIC_URL, text)
current = {}


def fake_generate(model, messages, **kwargs):
    current["sent"] = to_litellm_messages(messages)
    assertions = current["task"].evaluation_criteria.nl_assertions or []
    return AssistantMessage(role="assistant", content=judge_reply(assertions, current["mode"]))


nl_mod.generate = fake_generate


def to_messages(transcript):
    out = []
    for m in transcript["messages"]:
        calls = [ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"], requestor=c["requestor"])
                 for c in m.get("tool_calls") or []] or None
        if m["role"] == "assistant":
            out.append(AssistantMessage(role="assistant", content=m["content"], tool_calls=calls))
        elif m["role"] == "user":
            out.append(UserMessage(role="user", content=m["content"], tool_calls=calls))
        elif m["role"] == "tool":
            out.append(ToolMessage(id=m["tool_call_id"], role="tool", content=same_pydantic(m["content"]),
                                   requestor=m["requestor"], error=m["error"]))
        else:
            out.append(SystemMessage(role="system", content=m["content"]))
    return out


def dump(info):
    return info.model_dump(mode="json")


def one(case):
    task = Task.model_validate(case["task"])
    current.update(task=task, mode=case["judge_mode"], sent=None)
    messages = to_messages(case["transcript"])
    if payload.get("components"):
        out = {
            "action": dump(ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)),
            "communicate": dump(CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages)),
            "nl": dump(nl_mod.NLAssertionsEvaluator.calculate_reward(task=task, full_trajectory=messages)),
        }
    else:
        sim = SimulationRun(id="sim", task_id=task.id, start_time="", end_time="", duration=0.0,
                            termination_reason=case["termination_reason"], messages=messages)
        try:
            out = {"reward_info": dump(evaluate_simulation(sim, task, EvaluationType.ALL, False, case["domain"]))}
        except Exception as exc:
            out = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    out["sent"] = current["sent"]
    return out


print(json.dumps([one(c) for c in payload["cases"]]))
"""


def script() -> str:
    """The reference script, with the scripted judge's source (the one the tests use on our side)."""
    return "import hashlib\n" + inspect.getsource(eval_cases.judge_reply) + _BODY
