"""One BFCL multi-turn conversation in function-calling mode: the rules of ``BaseHandler.inference_multi_turn_FC``
(bfcl-eval) with the model outside.

Turn ``t`` opens with the task's user messages ``question[t]``; a turn that holds out functions (``miss_func``:
``missed_function[str(t)]``) adds their docs to the tools and opens with the package's
``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC`` instead. Within a turn each agent message is one step: its
function calls are decoded as the OpenAI function-calling handler decodes them (``convert_to_function_call``) and
executed on the task's API instances (``execute_multi_turn_func_call``, the instances made from the task's
``initial_config`` on first use and kept for the whole attempt); the results go back one tool message per call. A
message with no calls (text, or calls that decode to nothing) ends the turn, and the next turn's user messages are
the answer; after the last turn the conversation ends (``user_stop``). More than ``MAXIMUM_STEP_LIMIT`` steps in one
turn force-quit the whole conversation (``max_steps``), as the package does.

``transcript.info["turns"]`` holds the index of each turn's first message (what grading splits the transcript by);
``transcript.info["effects"]`` each call's state effect by its id (:mod:`.effects`; the calls of a step run one
after another, as the package's loop over them runs them; for the viewer, grading never reads it).
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from agentcompass.conversation import Message, Termination, Transcript

from . import _package
from .effects import diff, state
from .shapes import BfclEntry


def executes(entry: BfclEntry, calls: list[str], model_name: str, *, eval_run: bool = False) -> list[str]:
    """Run decoded calls on the task's API instances kept under ``model_name``; their results, as the package
    gives them."""
    return run_calls(entry, calls, model_name, eval_run=eval_run)[0]


def run_calls(
    entry: BfclEntry, calls: list[str], model_name: str, *, eval_run: bool = False
) -> tuple[list[str], dict[str, object]]:
    """:func:`executes`, and the API instances (by class name) the calls ran on."""
    category = entry["id"].rsplit("_", 1)[0]
    results, instances = _package.multi_turn_utils().execute_multi_turn_func_call(
        calls,
        entry.get("initial_config", {}),
        entry["involved_classes"],
        model_name,
        entry["id"],
        long_context="long_context" in category or "composite" in category,
        is_evaL_run=eval_run,
    )
    return [str(r) for r in results], dict(instances)


def model_response(message: Message) -> Any:
    """The step's response as the OpenAI handler parses it: ``[{name: arguments}]`` for calls, else the text."""
    if message.tool_calls:
        return [{c.name: c.arguments} for c in message.tool_calls]
    return message.content


def decoded(response: Any) -> list[str]:
    """The step's calls, ``[]`` when it has none (the package's decoding fails, or gives an empty response)."""
    try:
        calls = _package.decode_calls(response)
    except Exception:  # the package's own rule: any decoding failure means "no calls"
        return []
    empty = _package.multi_turn_utils().is_empty_execute_response(calls)
    return [] if empty else calls


class BfclConversation:
    """The BFCL side of one attempt (an :class:`agentcompass.conversation.Conversation`). ``entry``: the task as
    ``bfcl_eval.utils.load_dataset_entry`` gives it (``function`` and ``missed_function`` filled in)."""

    def __init__(self, entry: BfclEntry) -> None:
        self.entry = copy.deepcopy(entry)
        self.functions: list[dict[str, object]] = list(self.entry.get("function") or [])
        self.tools = _package.openai_tools(self.functions)
        self.system_prompt: str | None = None  # function-calling mode sends no system prompt
        self.model_name = f"agentcompass_{uuid.uuid4().hex}"
        self.step_limit = int(_package.constants().MAXIMUM_STEP_LIMIT)
        self.turn, self.steps = -1, 0
        info = {"bfcl_id": self.entry["id"], "turns": [], "step_limit": self.step_limit, "effects": {}}
        self.transcript = Transcript(info=info)
        self.instances: dict[str, object] = {}
        self.done = False

    async def start(self) -> list[Message]:
        # the instances, from the initial config (as the handler does)
        self.instances = run_calls(self.entry, [], self.model_name)[1]
        return self._next_turn()

    async def send(self, message: Message) -> list[Message]:
        if self.done:
            return []
        message.role = "assistant"
        self.transcript.append(message)
        calls = decoded(model_response(message))
        if not calls:
            return self._next_turn()
        results = self._execute(calls, message)
        replies = [
            self.transcript.append(Message(role="tool", content=result, tool_call_id=call.id))
            for result, call in zip(results, message.tool_calls, strict=False)
        ]
        self.steps += 1
        if self.steps > self.step_limit:
            self.stop(Termination.MAX_STEPS.value)
        return replies

    def _execute(self, calls: list[str], message: Message) -> list[str]:
        """The calls' results, each call run on its own and its state effect kept under its id."""
        results: list[str] = []
        effects = self.transcript.info["effects"]
        for k, call in enumerate(calls):
            before = state(self.instances)
            results += executes(self.entry, [call], self.model_name)
            if k < len(message.tool_calls):
                effects[message.tool_calls[k].id] = diff(before, state(self.instances))
        return results

    def stop(self, reason: str) -> None:
        self.done = True
        self.transcript.termination = str(reason)
        _package.forget_instances(self.model_name)

    def _next_turn(self) -> list[Message]:
        self.turn += 1
        questions = self.entry["question"]
        if self.turn >= len(questions):
            self.stop(Termination.USER_STOP.value)
            return []
        said = list(questions[self.turn])
        held_out = self.entry.get("missed_function") or {}
        if str(self.turn) in held_out:
            self.functions.extend(held_out[str(self.turn)])
            self.tools = _package.openai_tools(self.functions)
            prompt = _package.constants().DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
            said = [{"role": "user", "content": prompt}]
        self.steps = 0
        self.transcript.info["turns"].append(len(self.transcript.messages))
        return [self.transcript.append(Message(role=str(m["role"]), content=m.get("content"))) for m in said]
