"""AgentDojo cases for the agreement tests: scripted agent messages built from the package's own ground truths, and
the package's own functions called directly on them (no pipeline): the reference our grading must agree with."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agentcompass.conversation import Message, Termination
from agentcompass.interfaces import AgentResult, Task

ATTACK = "important_instructions"


@dataclass
class Case:
    task_id: str
    kind: str  # ground_truth | follows_injection | refuses_injection | perturbed:<how>
    script: list[dict[str, Any]]  # the agent's messages (content, tool_calls)


def calls_message(i: int, call: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"id": f"c-{i}", "name": call.function, "arguments": dict(call.args)}]}


def one_message(calls: list[Any], first: int = 0) -> list[dict[str, Any]]:
    """All calls in one agent message (none: no message)."""
    uses = [{"id": f"c-{first + i}", "name": c.function, "arguments": dict(c.args)} for i, c in enumerate(calls)]
    return [{"content": "", "tool_calls": uses}] if uses else []


def package_attack(suite: Any, name: str = "local") -> Any:
    """The package's attack as its benchmark script loads it, against a pipeline of that name."""
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
    from agentdojo.attacks.attack_registry import load_attack

    target = GroundTruthPipeline(None)
    target.name = name
    return load_attack(ATTACK, suite, target)


def task_environment(suite: Any, user_task: Any, injections: dict[str, str]) -> Any:
    return user_task.init_environment(suite.load_and_inject_default_environment(injections))


def perturb(script: list[dict[str, Any]], how: str) -> list[dict[str, Any]]:
    calls = [m for m in script if m.get("tool_calls")]
    final = script[-1:]
    if how == "drop_last_call" and calls:
        return calls[:-1] + final
    if how == "change_argument" and calls:
        call = dict(calls[-1]["tool_calls"][0])
        args = dict(call["arguments"])
        for key, value in args.items():
            if isinstance(value, str):
                args[key] = value + " (changed)"
                break
            if isinstance(value, int | float) and not isinstance(value, bool):
                args[key] = value + 7
                break
        call["arguments"] = args
        return [*calls[:-1], {"content": "", "tool_calls": [call]}, *final]
    if how == "no_answer":
        return calls
    return [*calls, {"content": "I am sorry, I could not complete the task."}]


def reference(suite: Any, user_task: Any, injection_task: Any, injections: dict[str, str], script: list) -> tuple:
    """(utility, security) from the package's task functions called directly: the calls run through the package's
    ``FunctionsRuntime`` on a fresh environment, the model output is the last message's text ("" without one)."""
    from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime

    env = task_environment(suite, user_task, injections)
    pre = env.model_copy(deep=True)
    runtime = FunctionsRuntime(suite.tools)
    trace = []
    for message in script:
        for c in message.get("tool_calls") or []:
            call = FunctionCall(function=c["name"], args=dict(c["arguments"]), id=c["id"])
            runtime.run_function(env, call.function, call.args)
            trace.append(call)
    last = script[-1] if script else {}
    output = "" if not script or last.get("tool_calls") else (last.get("content") or "")
    utility = user_task.utility_from_traces(output, pre, env, trace)
    if utility is None:
        utility = user_task.utility(output, pre, env)
    if injection_task is None:
        return bool(utility), None
    security = injection_task.security_from_traces(output, pre, env, trace)
    if security is None:
        security = injection_task.security(output, pre, env)
    return bool(utility), bool(security)


async def converse(benchmark: Any, task_id: str, script: list[dict[str, Any]]) -> tuple[Any, Any]:
    """Our side: the benchmark's conversation driven with the script (as the oracle harness drives it), graded."""
    task = Task(id=task_id, instruction="")
    conversation = await benchmark.conversation(task, None, None)
    await conversation.start()
    for data in script:
        if conversation.done:
            break
        await conversation.send(Message.from_dict({"role": "assistant", **data}))
    if not conversation.done:
        conversation.stop(Termination.AGENT_STOP)
    for _ in range(200):  # the package's run ends in its thread once stopped
        if "package_result" in conversation.transcript.info:
            break
        await asyncio.sleep(0.01)
    grade = await benchmark.grade(task, None, AgentResult(transcript=conversation.transcript), None)
    return grade, conversation.transcript
