"""Context management of terminus2 (FORMATS.md D5) against the scripted server: proactive and reactive
summarization (three model calls), the short-summary fallback and the no-model fallback."""

from __future__ import annotations

import shutil

import pytest
from t2_support import OVERFLOW, REFUSED, Dispatcher, reply, user_text

from agentcompass.harnesses.terminus2.context import ContextManager, estimate_tokens

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")

CONFIRM = "Are you sure you want to mark the task as complete?"
BIG = "x" * 60_000                 # ~15,000 tokens by the chars/4 estimate
SMALL_CONTEXT = {"context_limit": 20_000, "proactive_summarization_threshold": 8000}


def solving_script() -> list[str]:
    return [reply("echo 'hi from terminus' > greeting.txt\n"),
            reply("cat greeting.txt\n", analysis=BIG),
            reply(task_complete=True),
            reply(task_complete=True)]


def messages(request):
    return request["body"]["messages"]


def test_proactive_summarization_makes_three_calls_and_hands_off(terminus_local):
    script = Dispatcher(solving_script())
    out = terminus_local(script, harness=SMALL_CONTEXT)
    assert out.error is None, out.error
    assert script.kinds == ["main", "main", "summary", "questions", "answers", "main", "main"]
    summary_req, questions_req, answers_req, handoff_req = out.requests[2:6]
    assert len(messages(summary_req)) == 5 and BIG in messages(summary_req)[3]["content"]   # full history
    assert len(messages(questions_req)) == 1                                                 # fresh context
    q = user_text(questions_req)
    assert "SUMMARY-TEXT" in q and "Current terminal screen:" in q and "greeting.txt" in q
    assert [m["content"] for m in messages(answers_req)[-3:-1]][1] == "SUMMARY-TEXT"
    assert "QUESTIONS-TEXT" in user_text(answers_req) and BIG in messages(answers_req)[3]["content"]
    handoff = messages(handoff_req)
    assert [m["role"] for m in handoff] == ["user", "assistant", "user"]
    assert "Task Description:" in handoff[0]["content"] and "SUMMARY-TEXT" in handoff[0]["content"]
    assert handoff[1]["content"] == "1. QUESTIONS-TEXT?"
    assert "ANSWERS-TEXT" in handoff[2]["content"] and BIG not in str(handoff)
    assert out.result.exit_status == "completed" and out.result.n_turns == 4
    assert out.result.info["summarization_count"] == 1 and out.result.usage.n_calls == 7
    system = [s for s in out.trajectory["steps"] if s["source"] == "system"]
    assert len(system) == 1 and system[0]["extra"]["mode"] == "full"
    assert system[0]["extra"]["trigger"] == "proactive" and system[0]["extra"]["answers"] == "ANSWERS-TEXT"
    assert out.trajectory["extra"]["summarization_count"] == 1
    assert out.grade.reward == 1.0


def test_short_summary_fallback_when_the_summary_call_fails(terminus_local):
    script = Dispatcher(solving_script(), summary=REFUSED)
    out = terminus_local(script, harness=SMALL_CONTEXT)
    assert out.error is None, out.error
    assert script.kinds == ["main", "main", "summary", "short", "main", "main"]
    short_req, restart_req = out.requests[3], out.requests[4]
    assert len(messages(short_req)) == 1 and len(user_text(short_req)) < 3000      # last 1000 screen chars
    restart = messages(restart_req)
    assert len(restart) == 1
    assert "Task Description:" in restart[0]["content"]
    assert "Summary of the work done on this task so far:\nSHORT-SUMMARY-TEXT" in restart[0]["content"]
    system = [s for s in out.trajectory["steps"] if s["source"] == "system"][0]
    assert system["extra"]["mode"] == "short" and "summary: ModelError" in system["extra"]["errors"][0]
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


def test_no_model_fallback_when_both_summaries_fail(terminus_local):
    script = Dispatcher(solving_script(), summary=REFUSED, short=REFUSED)
    out = terminus_local(script, harness=SMALL_CONTEXT)
    assert out.error is None, out.error
    assert script.kinds == ["main", "main", "summary", "short", "main", "main"]
    restart = messages(out.requests[4])
    assert len(restart) == 1 and "Task Description:" in restart[0]["content"]
    assert "Summary of the work" not in restart[0]["content"]
    assert "Current terminal state:" in restart[0]["content"] and "hi from terminus" in restart[0]["content"]
    system = [s for s in out.trajectory["steps"] if s["source"] == "system"][0]
    assert system["extra"]["mode"] == "fallback" and len(system["extra"]["errors"]) == 2
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


def test_reactive_summarization_unwinds_then_summarizes(terminus_local):
    script = Dispatcher([reply("echo 'hi from terminus' > greeting.txt\n"),
                         reply("echo big\n", analysis="y" * 68_000),
                         reply("echo three\n"),
                         OVERFLOW,
                         reply(task_complete=True), reply(task_complete=True)])
    out = terminus_local(script, harness={"context_limit": 20_000, "proactive_summarization_threshold": 0,
                                          "reactive_free_tokens": 4000})
    assert out.error is None, out.error
    assert script.kinds == ["main"] * 4 + ["summary", "questions", "answers", "main", "main"]
    summary_req = out.requests[4]
    assert len(messages(summary_req)) == 3                      # unwound to [first prompt, first reply]
    assert "y" * 1000 not in str(messages(summary_req))
    retry = messages(out.requests[7])
    assert len(retry) == 3 and "ANSWERS-TEXT" in retry[2]["content"]
    system = [s for s in out.trajectory["steps"] if s["source"] == "system"][0]
    assert system["extra"]["trigger"] == "reactive"
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


def test_estimate_and_unwind_rules():
    cm = ContextManager(limit=1000, threshold=100, reactive_free=500, ask=None, render=None, screen=None,
                        instruction="", first_prompt_values={})
    chat = [{"role": "user", "content": "a" * 400}, {"role": "assistant", "content": "b" * 400},
            {"role": "user", "content": "c" * 2000}, {"role": "assistant", "content": "d" * 400}]
    assert estimate_tokens(chat) == 800 + 16
    assert cm.unwind(chat) == chat[:2]                              # the first pair always stays
    assert cm.needs_summary(chat, "e" * 400) and not cm.needs_summary(chat[:2], "e")


def test_tiny_context_limit_summarizes_every_turn_and_keeps_the_confirmation(terminus_local):
    script = Dispatcher([reply("echo 'hi from terminus' > greeting.txt\n"), reply(task_complete=True),
                         reply(task_complete=True)])
    out = terminus_local(script, harness={"context_limit": 1500})
    assert out.error is None, out.error
    assert script.kinds == ["main"] + ["summary", "questions", "answers", "main"] * 2
    last = user_text(out.requests[-1])
    assert "ANSWERS-TEXT" in last and CONFIRM in last         # the pending question survives the handoff
    assert out.result.exit_status == "completed" and out.result.info["summarization_count"] == 2
    assert out.grade.reward == 1.0


def test_first_prompt_alone_over_the_limit_does_not_summarize_an_empty_chat(terminus_local):
    script = Dispatcher([reply(task_complete=True), reply(task_complete=True)])
    out = terminus_local(script, harness={"context_limit": 100, "enable_summarize": True}, grade=False)
    assert script.kinds[0] == "main"                           # nothing to summarize before the first reply
    assert out.result.exit_status == "completed"
