"""The grade of a transcript: the package's ``run_task_with_pipeline`` on a fresh environment (with the case's
injections) with the transcript's agent messages, in order, as the pipeline's LLM replies (then empty answers, as a
stopped conversation gives). The tools run again through the package's ``ToolsExecutor`` and ``FunctionsRuntime``;
the package's ``utility`` / ``utility_from_traces`` and ``security`` / ``security_from_traces`` of the tasks score
the model output, the pre- and post-environments and the calls, exactly as they scored the live run."""

from __future__ import annotations

from typing import Any

from agentcompass.conversation import Transcript

from .elements import ReplayElement, to_package
from .run import CaseRun


def replies(transcript: Transcript) -> list[Any]:
    """The agent's messages of a transcript as the package's assistant messages."""
    return [to_package(m) for m in transcript.messages if m.role == "assistant"]


def score(case: CaseRun, transcript: Transcript) -> tuple[bool, bool]:
    """(utility, security) of the transcript; security is True without an injection task (the package's)."""
    utility, security = case.execute(ReplayElement(case.name, replies(transcript)))
    return bool(utility), bool(security)
