"""A tool-use benchmark with a scripted conversation, for the conformance suite of conversing harnesses and the
MCP tests (``benchmark_params={"_target_": "agentcompass.testing.conversation.CalculatorBenchmark"}``): two
deterministic tools (``add``,
``reverse``) and a user whose replies come from a list; once the list is used up, the user's next turn ends the
conversation (``user_stop``). The grade is 1 when the conversation ended that way after a successful ``add``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import Field

from agentcompass.conversation import Conversation, Message, Termination, Transcript
from agentcompass.interfaces import AgentResult, AttemptContext, EnvSpec, Grade, Task
from agentcompass.testing.synthetic import SyntheticBenchmark, SyntheticConfig

SYSTEM_PROMPT = "You are a calculator desk. Use the tools to answer the user."
OPENING = "Hello, I need the sum of 2 and 3."
REPLIES = ["Thanks. Now reverse the word 'stressed'.", "Great, that is all."]
FAREWELL = "Goodbye."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "reverse",
            "description": "Reverse a text.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        },
    },
]


def run_tool(name: str, arguments: Mapping[str, object]) -> tuple[str, bool]:
    """The tool's output and whether the call failed."""
    try:
        if name == "add":
            a, b = arguments["a"], arguments["b"]
            if not isinstance(a, int) or not isinstance(b, int):
                raise TypeError("a and b must be integers")
            return str(a + b), False
        if name == "reverse":
            return str(arguments["text"])[::-1], False
        return f"Error: unknown tool {name}", True
    except (KeyError, TypeError) as exc:
        return f"Error: {exc}", True


class ScriptedConversation:
    """Implements :class:`~agentcompass.conversation.Conversation` from a script."""

    def __init__(self, replies: list[str] | None = None, max_steps: int = 30) -> None:
        self.tools: list[dict[str, Any]] = TOOLS
        self.system_prompt: str | None = SYSTEM_PROMPT
        self.transcript = Transcript(info={"script": "calculator"})
        self.done = False
        self.replies = list(REPLIES if replies is None else replies)
        self.max_steps = max_steps

    async def start(self) -> list[Message]:
        return [self.transcript.append(Message(role="user", content=OPENING))]

    async def send(self, message: Message) -> list[Message]:
        if self.done:
            return []
        self.transcript.append(message)
        out: list[Message] = []
        for call in message.tool_calls:
            text, error = run_tool(call.name, call.arguments)
            out.append(Message(role="tool", content=text, tool_call_id=call.id, error=error))
        if not message.tool_calls:
            reply = self.replies.pop(0) if self.replies else FAREWELL
            out.append(Message(role="user", content=reply))
            if reply == FAREWELL:
                self.stop(Termination.USER_STOP)
        for m in out:
            self.transcript.append(m)
        if not self.done and len(self.transcript.messages) >= self.max_steps:
            self.stop(Termination.MAX_STEPS)
        return out

    def stop(self, reason: str) -> None:
        self.done = True
        self.transcript.termination = str(reason)


class CalculatorConfig(SyntheticConfig):
    n_tasks: int = Field(1, ge=0)
    image: str = Field("agentcompass/base:bookworm", description="the environment's image")


class CalculatorBenchmark(SyntheticBenchmark):
    """Task ``syn-0``: the scripted calculator conversation."""

    config_class = CalculatorConfig
    config: CalculatorConfig

    def load(self) -> list[Task]:
        return [replace(t, workdir="/") for t in super().load()]  # no files: the agent works in /, as for tau2

    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, image=self.config.image, workdir="/")

    async def conversation(self, task: Task, env: Any, ctx: AttemptContext) -> Conversation:
        return ScriptedConversation()

    async def grade(self, task: Task, env: Any, agent: AgentResult, ctx: AttemptContext) -> Grade:
        transcript = agent.transcript
        if isinstance(transcript, dict):
            transcript = Transcript.from_dict(transcript)
        added = any(m.role == "tool" and m.content == "5" and not m.error for m in transcript.messages)
        ok = added and transcript.termination == Termination.USER_STOP
        return Grade(reward=1.0 if ok else 0.0, resolved=ok)
