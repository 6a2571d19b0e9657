"""One AgentDojo case (a suite's user task, alone or with an injection task) as the package runs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import _package


@dataclass
class CaseRun:
    """The package's objects of one case: ``suite`` (a ``TaskSuite``), ``user_task``, ``injection_task`` (None: no
    attack), ``injections`` (vector id -> text, as the attack places them), ``defense`` and ``name`` (the
    pipeline's name, read by attacks)."""

    suite: Any
    user_task: Any
    injection_task: Any = None
    injections: dict[str, str] = field(default_factory=dict)
    defense: str | None = None
    name: str = "local"

    def pipeline(self, llm: Any) -> Any:
        return _package.pipeline(llm, self.defense)

    def execute(self, llm: Any) -> tuple[bool, bool]:
        """``suite.run_task_with_pipeline`` with ``llm`` as the pipeline's LLM: the environment loaded fresh with
        the injections, the user task's prompt, the package's tool execution; (utility, security) as the package
        computes them (security: the injection task succeeded; True without one)."""
        pipeline = self.pipeline(llm)
        utility, security = self.suite.run_task_with_pipeline(
            pipeline, self.user_task, self.injection_task, self.injections
        )
        return bool(utility), bool(security)

    def task_environment(self) -> Any:
        """The environment the agent starts from (injected, then the user task's ``init_environment``)."""
        environment = self.suite.load_and_inject_default_environment(self.injections)
        return self.user_task.init_environment(environment)

    def ground_truth_messages(self) -> list[dict[str, object]]:
        """The user task's ground truth as agent messages: every call of ``ground_truth(pre_environment)`` in one
        message (empty text; the package's tools-execution loop runs them in order, within its 15 rounds), then the
        task's ``GROUND_TRUTH_OUTPUT``: the calls and output of the package's ``GroundTruthPipeline``."""
        calls = self.user_task.ground_truth(self.task_environment())
        uses = [{"id": f"gt-{i}", "name": c.function, "arguments": dict(c.args)} for i, c in enumerate(calls)]
        messages: list[dict[str, object]] = [{"content": "", "tool_calls": uses}] if uses else []
        messages.append({"content": self.user_task.GROUND_TRUTH_OUTPUT})
        return messages
