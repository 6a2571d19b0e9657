"""Agreement of the terminus2 reply handling with Harbor 0.26.0's, on tricky replies.

Harbor's side runs in the harbor reference venv (Python 3.12), all replies in ONE subprocess, through Harbor's
own ``Terminus2._handle_llm_interaction`` (its parser, the ``min(duration, 60)`` of the commands, the feedback
line); ours through the harness's :class:`ReplyParser` and :func:`feedback_of`. Compared on every reply: the
commands executed (keystrokes, duration), ``task_complete``, the error and warning texts (so their classes),
the feedback sent back, and the analysis / plan values.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from t2_support import harbor_dir
from tricky_replies import REPLIES

from agentcompass.harnesses.terminus2.agent import feedback_of
from agentcompass.harnesses.terminus2.harbor_parser import ReplyParser
from agentcompass.harnesses.terminus2.harbor_source import load_source
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.testing.reference import run_reference

HARBOR_SIDE = r"""
import asyncio, json, os, sys, tempfile
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from pathlib import Path
from harbor.agents.terminus_2.terminus_2 import Terminus2
from harbor.llms.base import LLMResponse

replies = json.load(sys.stdin)
agent = Terminus2(logs_dir=Path(tempfile.mkdtemp()), model_name="openai/agreement",
                  record_terminal_session=False, suppress_max_turns_warning=True)

async def main():
    out = []
    for text in replies:
        async def reply(*args, _text=text, **kwargs):
            return LLMResponse(content=_text)
        agent._query_llm = reply
        commands, done, feedback, analysis, plan, _ = await agent._handle_llm_interaction(None, "", "", None)
        parsed = agent._parser.parse_response(text)
        out.append({"commands": [[c.keystrokes, repr(c.duration_sec)] for c in commands],
                    "task_complete": bool(done), "error": parsed.error, "warning": parsed.warning,
                    "feedback": feedback, "analysis": repr(analysis), "plan": repr(plan)})
    return out

print(json.dumps(asyncio.run(main())))
"""


def _sorted_fields(text: str) -> str:
    """Harbor lists unknown command fields in set order, which differs between processes: sort them."""
    return re.sub(r"(Unknown fields: )([^\n]+)", lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), text)


def _kind(line: str) -> str:
    """A message class: the text with numbers masked, up to its detail (``Missing required fields``)."""
    words = re.sub(r"\d+", "#", line.removeprefix("- ").strip())
    if words.startswith("AUTO-CORRECTED"):
        return words
    head = words.split(": ")
    return ": ".join(head[:2]) if words.startswith("Command #:") else head[0]


def ours(parser: ReplyParser, prompts: HarborPrompts, text: str) -> dict[str, object]:
    parsed = parser.parse(text)
    return {
        "commands": [[c.keystrokes, repr(c.duration)] for c in parsed.commands],
        "task_complete": parsed.task_complete,
        "error": parsed.error,
        "warning": parsed.warning,
        "feedback": feedback_of(prompts, parsed),
        "analysis": repr(parsed.analysis),
        "plan": repr(parsed.plan),
    }


@pytest.mark.slow
def test_tricky_replies_agree_with_harbor_on_every_field(capsys):
    source = load_source(harbor_dir(), None, False)
    parser, prompts = ReplyParser(source), HarborPrompts(source)
    names, texts = zip(*REPLIES, strict=False)
    theirs = run_reference("harbor", HARBOR_SIDE, list(texts), timeout=300)
    assert len(theirs) == len(REPLIES) >= 40
    differing = []
    for name, text, ref in zip(names, texts, theirs, strict=False):
        mine = ours(parser, prompts, text)
        mine = {k: _sorted_fields(v) if isinstance(v, str) else v for k, v in mine.items()}
        ref = {k: _sorted_fields(v) if isinstance(v, str) else v for k, v in ref.items()}
        if mine != ref:
            differing.append((name, {k: (mine[k], ref[k]) for k in mine if mine[k] != ref[k]}))
    errors = Counter(_kind(r["error"]) for r in theirs if r["error"])
    warnings = Counter(_kind(line) for r in theirs for line in r["warning"].splitlines() if line.strip())
    executed = sum(bool(r["commands"]) for r in theirs)
    with capsys.disabled():
        print(
            f"\nterminus2 parser agreement: {len(REPLIES) - len(differing)}/{len(REPLIES)} replies identical; "
            f"{sum(errors.values())} errors in {len(errors)} classes, {sum(warnings.values())} warnings in "
            f"{len(warnings)} classes, {executed} replies with commands to run, "
            f"{sum(r['task_complete'] for r in theirs)} completing"
        )
    assert not differing, differing
    assert len(errors) >= 6 and len(warnings) >= 10  # the set really exercises the parser
