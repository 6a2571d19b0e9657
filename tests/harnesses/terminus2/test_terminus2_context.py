"""Context management of terminus2 against the scripted server and a real local tmux: Harbor's proactive and
reactive summarization (three model calls), its short-summary and screen fallbacks, and token counting and
model limits as Harbor's LiteLLM computes them (compared in the harbor reference venv)."""

from __future__ import annotations

import shutil

import pytest
from t2_support import OVERFLOW, REFUSED, Dispatcher, lead, reply, tail, user_text

from agentcompass.harnesses.terminus2.context import ContextManager
from agentcompass.harnesses.terminus2.tokens import TokenCounter
from agentcompass.testing.reference import run_reference

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")
BIG = "x y z " * 2000  # a long analysis: ~6,000 tokens in the history once answered
SMALL = {"context_limit": 14_000, "proactive_summarization_threshold": 4000}


def solving_script() -> list[str]:
    return [
        reply("echo 'hi from terminus' > greeting.txt\n"),
        reply("cat greeting.txt\n", analysis=BIG),
        reply(task_complete=True, analysis=BIG),
        reply(task_complete=True),
    ]


def messages(request):
    return request["body"]["messages"]


@needs_tmux
def test_proactive_summary_makes_three_calls_and_replaces_the_pending_prompt(terminus_local):
    script = Dispatcher(solving_script())
    out = terminus_local(script, harness=SMALL)
    assert out.error is None, out.error
    assert script.kinds == ["main", "main", "main", "summary", "questions", "answers", "main"]
    third, summary_req, questions_req, answers_req, handoff_req = out.requests[2:7]
    assert "hi from terminus" in user_text(third)  # the output reached the model first
    assert len(messages(summary_req)) == 7 and BIG in messages(summary_req)[3]["content"]  # whole history
    assert len(messages(questions_req)) == 1  # fresh context
    q = user_text(questions_req)
    assert "SUMMARY-TEXT" in q and "greeting.txt" in q
    assert messages(answers_req)[-2]["content"] == "SUMMARY-TEXT" and "1. QUESTIONS-TEXT?" in user_text(answers_req)
    handoff = messages(handoff_req)
    assert [m["role"] for m in handoff] == ["user", "user", "assistant", "user"]
    assert handoff[0] == messages(out.requests[0])[0]  # the first prompt stays
    assert handoff[1]["content"] == q and handoff[2]["content"] == "1. QUESTIONS-TEXT?"
    assert handoff[3]["content"].startswith(lead("handoff")) and "ANSWERS-TEXT" in handoff[3]["content"]
    assert BIG not in str(handoff)
    assert out.result.exit_status == "completed" and out.result.info["summarization_count"] == 1
    assert out.result.usage.n_calls == 7 and out.result.n_turns == 4
    system = [s for s in out.trajectory["steps"] if s["source"] == "system"]
    assert len(system) == 1 and system[0]["extra"]["trigger"] == "proactive"
    assert system[0]["extra"]["answers"] == "ANSWERS-TEXT" and out.grade.reward == 1.0


@needs_tmux
def test_a_failed_proactive_summary_is_skipped(terminus_local):
    script = Dispatcher(solving_script(), summary=REFUSED)
    out = terminus_local(script, harness=SMALL)
    assert out.error is None, out.error
    assert script.kinds[:5] == ["main", "main", "main", "summary", "main"]
    assert user_text(out.requests[4]) == user_text(out.requests[3])[:0] + user_text(out.requests[4])
    assert lead("handoff") not in user_text(out.requests[4])  # the pending prompt went as it was
    assert out.result.info["summarization_count"] >= 1 and out.grade.reward == 1.0


@needs_tmux
def test_reactive_summary_unwinds_then_summarizes(terminus_local):
    script = Dispatcher(
        [
            reply("echo 'hi from terminus' > greeting.txt\n"),
            reply("echo big\n", analysis=BIG),
            OVERFLOW,
            reply(task_complete=True),
            reply(task_complete=True),
        ]
    )
    out = terminus_local(script, harness={"context_limit": 9000, "proactive_summarization_threshold": 0})
    assert out.error is None, out.error
    assert script.kinds == ["main"] * 3 + ["summary", "questions", "answers", "main", "main"]
    summary_req = out.requests[3]
    assert len(messages(summary_req)) == 3 and BIG not in str(messages(summary_req))  # unwound to the 1st pair
    retry = messages(out.requests[6])
    assert [m["role"] for m in retry] == ["user", "user", "assistant", "user"]
    assert "ANSWERS-TEXT" in retry[-1]["content"]
    system = next(s for s in out.trajectory["steps"] if s["source"] == "system")
    assert system["extra"]["trigger"] == "reactive" and system["extra"]["mode"] == "full"
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


@needs_tmux
@pytest.mark.parametrize("fails", ["summary", "both"])
def test_reactive_fallbacks(terminus_local, fails):
    refused = {"summary": REFUSED, "short": REFUSED if fails == "both" else "SHORT-SUMMARY-TEXT"}
    script = Dispatcher(
        [
            reply("echo 'hi from terminus' > greeting.txt\n"),
            OVERFLOW,
            reply(task_complete=True),
            reply(task_complete=True),
        ],
        **refused,
    )
    out = terminus_local(script, harness={"proactive_summarization_threshold": 0})
    assert out.error is None, out.error
    kinds = ["main", "main", "summary", "short", "main", "main"]
    assert script.kinds == kinds
    short_req, after = out.requests[3], messages(out.requests[4])
    assert len(messages(short_req)) == 1 and user_text(short_req).startswith(lead("short_summary"))
    assert len(after) == 3 and after[-1]["content"].startswith("In the working directory")  # the instruction
    if fails == "summary":
        assert after[-1]["content"].endswith("SHORT-SUMMARY-TEXT")
    else:
        assert "SHORT-SUMMARY-TEXT" not in after[-1]["content"] and "> greeting.txt" in after[-1]["content"]
    system = next(s for s in out.trajectory["steps"] if s["source"] == "system")
    assert system["extra"]["mode"] == ("short" if fails == "summary" else "screen")
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


@needs_tmux
def test_tiny_context_summarizes_each_episode_and_a_pending_completion_survives(terminus_local):
    script = Dispatcher(
        [reply("echo 'hi from terminus' > greeting.txt\n", task_complete=True), reply(task_complete=True)]
    )
    out = terminus_local(script, harness={"context_limit": 2500})
    assert out.error is None, out.error
    assert script.kinds == ["main", "summary", "questions", "answers", "main"]
    last = user_text(out.requests[-1])
    assert "ANSWERS-TEXT" in last and tail("confirm") not in last  # Harbor's handoff drops the question ...
    assert out.result.exit_status == "completed" and out.result.n_turns == 2  # ... but the completion counts
    assert out.grade.reward == 1.0


def test_unwind_keeps_the_first_message_and_drops_pairs():
    counted = []

    def count(chat):
        counted.append(len(chat))
        return sum(len(m["content"]) for m in chat)

    cm = ContextManager(
        None, limit=1000, threshold=100, reactive_free=500, count_tokens=count, ask=None, screen=None, instruction=""
    )
    chat = [{"role": r, "content": c * 200} for r, c in zip(["user", "assistant"] * 3, "abcdef", strict=False)]
    cm.unwind(chat)
    assert [m["content"][0] for m in chat] == ["a", "b"]  # 400 used, 600 free
    cm.unwind(chat := [{"role": "user", "content": "x" * 900}, {"role": "assistant", "content": "y"}])
    assert chat == []  # Harbor drops the last pair too
    assert cm.needs_summary([{"role": "user", "content": "x" * 950}])


TOKENS = r"""
import json, os, sys
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from litellm.utils import token_counter
from harbor.llms.lite_llm import LiteLLM
payload = json.load(sys.stdin)
counts = [token_counter(model="openai/" + payload["model"], messages=m) for m in payload["chats"]]
limits = {name: [LiteLLM(model_name=name).get_model_context_limit(), LiteLLM(model_name=name).get_model_output_limit()]
          for name in payload["names"]}
print(json.dumps({"counts": counts, "limits": limits}))
"""


@pytest.mark.slow
def test_token_counts_and_model_limits_are_harbors():
    chats = [
        [],
        [{"role": "user", "content": "hello"}],
        [{"role": "user", "content": "héllo 😀 " * 500}, {"role": "assistant", "content": '{"a": [1, 2]}'}],
        [
            {"role": "user", "content": "line\n" * 3000},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "x" * 20_000},
        ],
    ]
    names = {
        "openai/gpt-4o": "gpt-4o",
        "openai/scripted-model": "scripted-model",
        "anthropic/claude-sonnet-4-5": "claude-sonnet-4-5",
    }
    theirs = run_reference("harbor", TOKENS, {"model": "scripted-model", "chats": chats, "names": list(names)})
    counter = TokenCounter("scripted-model")
    assert [counter.count(c) for c in chats] == theirs["counts"]
    assert theirs["counts"][-1] > 5000  # a real tokenizer, not characters / 4
    for harbor_name, ours in names.items():
        mine = TokenCounter(ours)
        expected_limit, expected_out = theirs["limits"][harbor_name]
        assert (mine.context_limit() or 1_000_000) == expected_limit, harbor_name
        assert mine.output_limit() == expected_out, harbor_name
    assert theirs["limits"]["openai/scripted-model"][0] == 1_000_000  # an unknown model: Harbor's fallback
