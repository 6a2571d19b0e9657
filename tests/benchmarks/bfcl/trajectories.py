"""Trajectories of BFCL multi-turn tasks made from their ground truth, right and perturbed: per turn, a list of
steps, each step a list of calls ``(name, arguments)`` (a step with no calls is a text answer)."""

from __future__ import annotations

import copy
import random
from typing import Any

from agentcompass.benchmarks.bfcl.oracle import api_methods, call_of

Call = tuple[str, dict[str, Any]]
Turns = list[list[list[Call]]]
KINDS = (
    "ground_truth",
    "drop_call",
    "change_argument",
    "extra_call",
    "swap_turns",
    "call_in_empty_turn",
    "silent_last_turn",  # the agent stops when the last turn opens
    "step_limit",  # more steps in one turn than BFCL allows: the conversation is force-quit there
)
STEP_LIMIT = 20  # bfcl_eval.constants.default_prompts.MAXIMUM_STEP_LIMIT (a test compares)


def ground_truth_turns(entry: dict[str, Any], ground_truth: list[list[str]]) -> Turns:
    """One step with all of a turn's calls (none for an empty turn), then a text step."""
    methods = api_methods(entry["involved_classes"])
    turns: Turns = []
    for t, calls in enumerate(ground_truth):
        parsed = [call_of(c, methods, f"c{t}-{i}") for i, c in enumerate(calls)]
        step = [(c["name"], c["arguments"]) for c in parsed]
        turns.append(([step] if step else []) + [[]])
    return turns


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return [*value, value[0]] if value else ["x"]
    return "changed"


def perturb(kind: str, turns: Turns, rng: random.Random) -> Turns | None:
    """``turns`` changed as ``kind`` says; None when the task has nothing to change that way."""
    out = copy.deepcopy(turns)
    busy = [t for t, steps in enumerate(out) if any(steps)]
    if kind == "ground_truth":
        return out
    if kind == "silent_last_turn":
        out[-1] = []
        return out
    if not busy:
        return None
    t = rng.choice(busy)
    step = next(s for s in out[t] if s)
    if kind == "drop_call":
        step.pop(rng.randrange(len(step)))
    elif kind == "change_argument":
        with_args = [i for i, (_, args) in enumerate(step) if args]
        if not with_args:
            return None
        name, args = step[rng.choice(with_args)]
        key = rng.choice(sorted(args))
        args[key] = _changed(args[key])
    elif kind == "extra_call":
        step.append(copy.deepcopy(step[-1]))  # the turn's last call once more
    elif kind == "swap_turns":
        if t + 1 >= len(out):
            return None
        out[t], out[t + 1] = out[t + 1], out[t]
    elif kind == "step_limit":
        out[t] = [[step[0]] for _ in range(STEP_LIMIT + 1)]  # its first call, one step more than allowed
        out = out[: t + 1]
    elif kind == "call_in_empty_turn":
        empty = [e for e, steps in enumerate(out) if not any(steps) and e + 1 < len(out) and any(out[e + 1])]
        if not empty:
            return None
        e = rng.choice(empty)
        out[e] = copy.deepcopy(out[e + 1])  # answers now what the user asks only in the next turn
    return out
