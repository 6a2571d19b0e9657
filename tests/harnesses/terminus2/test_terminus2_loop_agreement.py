"""Harbor's Terminus-2 and our terminus2, driven by the same scripted replies over the same (fake) tmux: every
model request must carry the same message list.

Harbor's side is Harbor 0.26.0 itself in the harbor reference venv: its ``Terminus2`` agent with its own
LiteLLM client talking HTTP to a :class:`ScriptedModelServer` here, its own ``TmuxSession`` sending real tmux
command lines to ``fake_tmux.handle``. Ours is the ``terminus2`` harness through the replay kit, over the same
fake tmux. The script walks through: extra text (a warning), a reply cut at the output limit (re-asked in the
same episode), a large output (head and tail) that the model sees before the proactive summary it triggers
(three calls), a completion (confirmation asked) whose keystrokes end in ``;``, a context-length error (the
reactive summary), a parse error (the completion stays pending) and the confirming completion.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_tmux import FakePane, handle
from t2_support import harbor_dir

from agentcompass._config.registry import build
from agentcompass.harnesses.terminus2.harbor_source import load_source
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.interfaces import ComponentContext, EnvSpec, ExecResult, Task
from agentcompass.testing.reference import run_reference
from agentcompass.testing.replay import replay
from agentcompass.testing.scripted_server import ScriptedModelServer

INSTRUCTION = "Print a greeting, then say you are done."
BIG = "\n".join(f"line {i:05d} " + "abcdefghij" * 4 for i in range(400))
OUTPUTS = {"ls -la": "total 0\n-rw-r--r-- 1 root root 0 seed.txt", "big": BIG}
CONTEXT, OUTPUT_LIMIT, THRESHOLD = 6000, 4096, 2500


def j(*commands: tuple[str, float], done: bool | None = None, analysis: str = "a") -> str:
    data: dict[str, object] = {
        "analysis": analysis,
        "plan": "p",
        "commands": [{"keystrokes": k, "duration": d} for k, d in commands],
    }
    if done is not None:
        data["task_complete"] = done
    return json.dumps(data)


REPLIES = [
    "Let me look first.\n" + j(("ls -la\n", 0.01)),  # warning
    {
        "text": 'Plan: {"analysis": "long", "plan": "p", "commands": [{"keystrokes": "touch CUT\\n"',
        "finish_reason": "length",
    },  # cut at the output limit
    j(("big\n", 0.01)),  # large output
    j(("echo after-big\n", 0.01)),  # sees it, fills the context
    "SUMMARY-1",
    "1. QUESTION-1?",
    "ANSWERS-1",  # proactive summary
    j(("echo semi;", 0.01), ("\n", 0.01), done=True),  # completion: confirm
    {
        "status": 400,
        "error": "This model's maximum context length is 6000 tokens. However, your messages resulted in 9000 tokens.",
        "code": "context_length_exceeded",
    },
    "SUMMARY-2",
    "1. QUESTION-2?",
    "ANSWERS-2",  # reactive summary
    '{"analysis": "broken", "plan": oops}',  # parse error
    j(done=True),  # confirms: the run ends
]

HARBOR_SIDE = r"""
import asyncio, json, os, sys, tempfile
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from pathlib import Path
payload = json.load(sys.stdin)
fake = {}
exec(payload["fake_tmux"], fake)
from harbor.agents.terminus_2.terminus_2 import Terminus2
from harbor.environments.base import ExecResult
from harbor.models.agent.context import AgentContext

class Env:
    session_id = "fake"
    default_user = None
    def __init__(self):
        self.pane = fake["FakePane"](payload["outputs"])
    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None):
        rc, out, err = fake["handle"](self.pane, command)
        return ExecResult(stdout=out, stderr=err, return_code=rc)

async def main():
    agent = Terminus2(logs_dir=Path(tempfile.mkdtemp()), model_name="openai/" + payload["model"],
                      api_base=payload["base_url"], record_terminal_session=False, suppress_max_turns_warning=True,
                      proactive_summarization_threshold=payload["threshold"], model_info=payload["model_info"],
                      llm_kwargs={"api_key": "sk-agreement"})
    env = Env()
    await agent.setup(env)
    ctx = AgentContext()
    await agent.run(payload["instruction"], env, ctx)
    return {"typed": env.pane.typed, "metadata": {k: v for k, v in ctx.metadata.items() if "times" not in k}}

print(json.dumps(asyncio.run(main())))
"""


class FakeEnv:
    """Our Environment protocol over the fake tmux (a container-like environment: paths are its own)."""

    def __init__(self, outputs: dict[str, str]) -> None:
        self.pane, self.id, self.workdir, self.files = FakePane(outputs), "fake", "/app", {}

    def path(self, p: str) -> str:
        return p

    async def exec(self, cmd, *, timeout=None, cwd=None, env=None) -> ExecResult:
        rc, out, err = handle(self.pane, cmd)
        return ExecResult(exit_code=rc, stdout=out, stderr=err)

    async def write_file(self, path, data, mode=0o644) -> None:
        self.files[path] = data

    async def close(self) -> None:
        return None

    def describe(self) -> dict[str, str]:
        return {"provider": "fake"}


class FakeProvider:
    name = "fake"

    def __init__(self) -> None:
        self.opened: list[FakeEnv] = []

    async def open(self, spec: EnvSpec) -> FakeEnv:
        self.opened.append(FakeEnv(OUTPUTS))
        return self.opened[-1]

    async def aclose(self) -> None:
        return None


def harbor_run(replies: list[object]) -> tuple[list[list[dict]], dict]:
    source = Path(__file__).with_name("fake_tmux.py").read_text()
    with ScriptedModelServer(replies=list(replies)) as srv:
        payload = {
            "fake_tmux": source,
            "outputs": OUTPUTS,
            "model": "scripted-model",
            "base_url": srv.base_url,
            "threshold": THRESHOLD,
            "instruction": INSTRUCTION,
            "model_info": {"max_input_tokens": CONTEXT, "max_output_tokens": OUTPUT_LIMIT},
        }
        out = run_reference("harbor", HARBOR_SIDE, payload, timeout=300)
        return [r["body"]["messages"] for r in srv.requests], out


def our_run(tmp_path: Path, replies: list[object]) -> tuple[list[list[dict]], list[str], object]:
    harness = build(
        "harness",
        {
            "_target_": "agentcompass.harnesses.terminus2.Terminus2Harness",
            "id": "terminus2",
            "templates_dir": harbor_dir(),
            "context_limit": CONTEXT,
            "output_limit": OUTPUT_LIMIT,
            "proactive_summarization_threshold": THRESHOLD,
            "record_terminal": False,
        },
        ComponentContext(data_dir=tmp_path),
    )
    provider = FakeProvider()
    task = Task(id="agree", instruction=INSTRUCTION, workdir="/app", agent_timeout_s=120)
    out = replay(harness, task, list(replies), tmp_path, provider=provider, model={"id": "scripted-model"})
    assert out.error is None, out.error
    return out.messages, provider.opened[0].pane.typed, out.result


@pytest.mark.slow
def test_every_request_matches_harbors(tmp_path, capsys):
    theirs, harbor = harbor_run(REPLIES)
    ours, typed, result = our_run(tmp_path, REPLIES)
    same = sum(a == b for a, b in zip(ours, theirs, strict=False))
    with capsys.disabled():
        print(
            f"\nterminus2 loop agreement: {same}/{len(theirs)} requests identical "
            f"(ours made {len(ours)}); Harbor {harbor['metadata']}"
        )
    assert len(theirs) == len(REPLIES), "Harbor did not walk the whole script"
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        assert a == b, f"request {i + 1} differs"
    assert len(ours) == len(theirs)
    assert typed == harbor["typed"]  # the same keystrokes ran, in order
    assert result.info["summarization_count"] == harbor["metadata"]["summarization_count"] == 2
    assert result.n_turns == harbor["metadata"]["n_episodes"] and result.exit_status == "completed"

    p = HarborPrompts(load_source(harbor_dir(), None, False))
    last = [m[-1]["content"] for m in ours]
    head = p["summary"].parts[0]
    assert "line 00000" in last[3] and "line 00399" in last[3]  # the big output reached the model ...
    assert head in last[4] and all(head not in t for t in last[:4])  # ... before the summary it triggered
    assert p["confirm"].parts[-1] in last[8]  # the confirmation question
    assert p["parse_error"].parts[0] in last[13]  # the parse error after the reactive summary
