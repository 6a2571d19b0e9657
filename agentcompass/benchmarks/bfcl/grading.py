"""BFCL multi-turn grading of a transcript: what ``eval_runner._evaluate_single_multi_turn_entry`` (bfcl-eval) does
with a model's result, around the package's own ``multi_turn_checker``.

The transcript becomes the model result BFCL's inference writes: per turn, per step, the step's response (its calls,
or its text). A result with another number of turns than the ground truth was force-terminated and fails unchecked.
Otherwise each step is decoded (``convert_to_function_call``; steps that fail to decode or decode to nothing are
dropped) and the checker runs on all turns: per turn, the API instances' state after the model's calls must equal
the state after the ground truth's, and the ground truth's results must all be among the model's results so far;
the task passes when every turn does. The checker stops at the first failing turn; the per-turn verdicts are found
by running it on the turns up to each one (True up to the failing turn, False there, None after it).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agentcompass.conversation import Transcript

from . import _package
from .conversation import model_response
from .shapes import BfclEntry, VerdictDetails


@dataclass
class Verdict:
    """The checker's result on one task: ``valid``, the error it reported (``error_type``...), per-turn verdicts."""

    valid: bool
    turns: list[bool | None]
    error: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> VerdictDetails:
        return {"valid": self.valid, "turns": self.turns, "error": _plain(self.error)}


def model_result(transcript: Transcript) -> list[list[Any]]:
    """Per turn, the responses of the agent's steps (``transcript.info["turns"]``: each turn's first message)."""
    starts = [int(i) for i in transcript.info.get("turns") or []]
    messages = transcript.messages
    out: list[list[Any]] = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(messages)
        out.append([model_response(m) for m in messages[start:end] if m.role == "assistant"])
    return out


def decode(result: list[list[Any]]) -> list[list[list[str]]]:
    """Each turn's decoded steps, empty and undecodable ones dropped."""
    turns: list[list[list[str]]] = []
    for steps in result:
        kept: list[list[str]] = []
        for response in steps:
            try:
                calls = _package.decode_calls(response)
            except Exception:  # as the package: a step that does not decode is not a call
                continue
            if not _package.multi_turn_utils().is_empty_execute_response(calls):
                kept.append(calls)
        turns.append(kept)
    return turns


def run_checker(decoded: list[list[list[str]]], ground_truth: list[list[str]], entry: BfclEntry) -> dict[str, object]:
    """``multi_turn_checker`` on these turns, its API instances under a name of their own (freed after)."""
    name = f"agentcompass_{uuid.uuid4().hex}"
    category = entry["id"].rsplit("_", 1)[0]
    try:
        return dict(_package.multi_turn_checker().multi_turn_checker(decoded, ground_truth, entry, category, name))
    finally:
        _package.forget_instances(name)


def check(entry: BfclEntry, ground_truth: list[list[str]], result: list[list[Any]]) -> Verdict:
    """The verdict on one task's model result."""
    n = len(ground_truth)
    if len(result) != n:
        error: dict[str, object] = {
            "error_type": "multi_turn:force_terminated",
            "error_message": f"the result has {len(result)} turns, the ground truth {n}",
        }
        return Verdict(False, [None] * n, error)
    decoded = decode(result)
    full = run_checker(decoded, ground_truth, entry)
    if full.get("valid"):
        return Verdict(True, [True] * n)
    turns: list[bool | None] = [None] * n
    for k in range(n):  # the last turn fails when every earlier one passes (the whole check failed)
        ok = k < n - 1 and bool(run_checker(decoded[: k + 1], ground_truth[: k + 1], entry).get("valid"))
        turns[k] = ok
        if not ok:
            break
    return Verdict(False, turns, {key: value for key, value in full.items() if key != "valid"})


def _plain(value: Any) -> Any:
    """JSON-safe: the checker's details may hold sets and API objects."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)
