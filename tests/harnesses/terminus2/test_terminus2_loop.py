"""The terminus2 loop end to end: scripted model server (real HTTP, openai-chat), local environment, real tmux,
a Terminal-Bench-format task graded by its own test.sh. The texts checked are Harbor's, looked up from its files."""

from __future__ import annotations

import importlib
import json
import shutil

import pytest
from t2_support import harbor_prompts, lead, load_task, reply, tail, user_text

from agentcompass.errors import AgentError, ContextLengthExceededError

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")

BROKEN = '{"analysis": "oops", "plan": forgot quotes, "commands": [{"keystrokes": "touch SHOULD_NOT_EXIST\\n"}]}'


def test_fixture_sequence_of_formats(terminus_local):
    replies = [
        reply(("ls -la\n", 0.5)),
        "Sure, here is my next step:\n" + reply("echo prose-$((40+2))\n") + "\nThat should do it.",
        BROKEN,
        reply("echo marking-done\n", task_complete=True),
        reply(task_complete=True),
    ]
    out = terminus_local(replies, read=("/app/SHOULD_NOT_EXIST", "/logs/agent/trajectory.json"), grade=False)
    assert out.error is None, out.error
    r = out.result
    assert (r.exit_status, r.n_turns, r.n_format_errors, r.limit_hit) == ("completed", 5, 1, None)
    assert len(out.requests) == 5
    first, after_ls, after_prose, after_broken, after_complete = [user_text(q) for q in out.requests]
    p, instruction = harbor_prompts(), load_task("greeting")[1].instruction
    before, after = p.prompt_template.split("{instruction}")
    assert first.startswith(before.replace("{{", "{").replace("}}", "}") + instruction)
    assert lead("current_screen") in first and after.split("{terminal_state}")[0].strip() in first
    assert after_ls.startswith(lead("new_output")) and "seed.txt" in after_ls
    assert after_prose.startswith(lead("warnings")) and "prose-42" in after_prose
    assert after_broken.startswith(lead("parse_error")) and p.text("response_type") in after_broken
    assert out.files["/app/SHOULD_NOT_EXIST"] is None  # nothing executed after the error
    assert after_complete.endswith(tail("confirm")) and "marking-done" in after_complete
    assert sum(q.endswith(tail("confirm")) for q in (first, after_ls, after_prose, after_broken)) == 0
    assert [m["role"] for m in out.requests[4]["body"]["messages"]] == ["user", "assistant"] * 4 + ["user"]
    assert r.usage.n_calls == 5 and r.usage.input_tokens > 0


def test_trajectory_is_atif_and_copied_into_the_environment(terminus_local):
    replies = [reply(("ls -la\n", 0.5)), BROKEN, reply("echo bye\n", task_complete="true"), reply(task_complete=True)]
    out = terminus_local(replies, read=("/logs/agent/trajectory.json",), grade=False)
    t = out.trajectory
    assert t["schema_version"] == "ATIF-v1.2" and t["session_id"] and t["agent"]["name"] == "terminus-2"
    assert t["agent"]["model_name"] == "m" and t["agent"]["extra"]["prompts"]["matches_harbor"] == "0.26.0"
    assert [s["source"] for s in t["steps"]] == ["user", "agent", "agent", "agent", "agent"]
    ls_step, broken_step, done_step, _confirm_step = t["steps"][1:]
    assert ls_step["message"] == "Analysis: looking\nPlan: type commands"
    assert ls_step["tool_calls"] == [
        {
            "tool_call_id": "call_0_1",
            "function_name": "bash_command",
            "arguments": {"keystrokes": "ls -la\n", "duration": 0.5},
        }
    ]
    assert ls_step["observation"]["results"][0]["source_call_id"] == "call_0_1"
    assert "seed.txt" in ls_step["observation"]["results"][0]["content"]
    assert ls_step["metrics"]["prompt_tokens"] > 0
    assert "tool_calls" not in broken_step and broken_step["message"] == BROKEN
    assert broken_step["extra"]["error"].startswith("Invalid JSON")
    assert [c["tool_call_id"] for c in done_step["tool_calls"]] == ["call_2_1", "call_2_task_complete"]
    assert done_step["observation"]["results"][0]["content"].endswith(tail("confirm"))
    assert t["extra"]["n_episodes"] == 4 and t["extra"]["summarization_count"] == 0
    assert t["extra"]["exit_status"] == "completed"
    assert t["final_metrics"]["total_prompt_tokens"] == out.result.usage.input_tokens
    assert out.result.trajectory_path == str(out.attempt_dir / "trajectory.json")
    assert json.loads(out.files["/logs/agent/trajectory.json"]) == t


def test_solves_a_task_through_keystrokes_with_double_confirmation(terminus_local):
    replies = [
        reply("echo 'hi from terminus' > greeting.txt\n", "cat greeting.txt\n"),
        reply(task_complete=True, analysis="the file is there"),
        reply(task_complete=True, analysis="confirmed"),
    ]
    out = terminus_local(replies)
    assert out.error is None and out.result.exit_status == "completed" and out.result.n_turns == 3
    assert "hi from terminus" in user_text(out.requests[1])
    assert user_text(out.requests[2]).endswith(tail("confirm"))
    assert out.grade.error is None and out.grade.reward == 1.0


def test_demo_task_solved_and_graded_by_the_demo_benchmark(terminus_local):
    replies = [reply("printf 'Hello, world!\\n' > hello.txt\n", task_complete=True), reply(task_complete=True)]
    out = terminus_local(replies, task_id="hello-file")
    assert out.result.exit_status == "completed" and out.grade.reward == 1.0


def test_a_valid_reply_in_between_clears_the_pending_completion(terminus_local):
    replies = [
        reply("echo one\n", task_complete=True),
        reply("echo 'hi from terminus' > greeting.txt\n", task_complete=False),  # clears the pending flag
        reply(task_complete=True),
        reply(task_complete=True),
    ]
    out = terminus_local(replies)
    assert out.result.exit_status == "completed" and out.result.n_turns == 4
    assert [user_text(q).endswith(tail("confirm")) for q in out.requests] == [False, True, False, True]
    assert out.grade.reward == 1.0


def test_a_pending_completion_survives_a_parse_error(terminus_local):
    replies = [
        reply("echo 'hi from terminus' > greeting.txt\n", task_complete=True),
        BROKEN,
        reply(task_complete=True),
        reply("echo never\n"),
    ]
    out = terminus_local(replies)
    assert out.error is None and out.result.exit_status == "completed"
    assert out.result.n_turns == 3 and len(out.requests) == 3  # true, parse error, true: done
    assert user_text(out.requests[2]).startswith(lead("parse_error"))
    assert out.grade.reward == 1.0


def test_task_complete_is_taken_as_harbor_takes_it(terminus_local):
    """``[true]`` completes (truthy), ``" True "`` does not (a string outside Harbor's list); the parser agreement
    test covers the other forms."""
    replies = [reply("echo x\n", task_complete=" True "), reply("echo y\n", task_complete=[True]), reply("echo z\n")]
    out = terminus_local(replies, grade=False, harness={"max_turns": 3})
    assert [user_text(q).endswith(tail("confirm")) for q in out.requests] == [False, False, True]


def test_max_turns_is_a_limit_not_an_error(terminus_local):
    out = terminus_local([reply("echo again\n")] * 5, harness={"max_turns": 2})
    assert out.error is None
    assert (out.result.exit_status, out.result.limit_hit, out.result.n_turns) == ("limits_exceeded", "max_turns", 2)
    assert len(out.requests) == 2 and out.grade.reward == 0.0
    assert out.trajectory["extra"]["limit_hit"] == "max_turns"


def test_output_length_stop_runs_nothing_and_asks_again_in_the_same_episode(terminus_local):
    truncated = {
        "text": '{"analysis": "long", "plan": "p", "commands": [{"keystrokes": "touch CUT\\n"}]',
        "finish_reason": "length",
    }
    out = terminus_local(
        [truncated, reply(task_complete=True), reply(task_complete=True)],
        read=("/app/CUT",),
        grade=False,
        harness={"output_limit": 512},
    )
    assert out.files["/app/CUT"] is None
    second = out.requests[1]["body"]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[1]["content"] == truncated["text"]
    assert second[2]["content"].startswith(lead("output_length")) and "512 tokens" in second[2]["content"]
    assert out.result.exit_status == "completed" and out.result.n_turns == 2


def test_duration_is_capped_silently(terminus_local):
    out = terminus_local(
        [reply(("echo capped\n", 900)), reply(task_complete=True), reply(task_complete=True)],
        harness={"duration_cap_s": 0.5},
        grade=False,
        test_timeout=60,
    )
    assert lead("warnings") not in user_text(out.requests[1])
    assert out.trajectory["steps"][1]["tool_calls"][0]["arguments"]["duration"] == 0.5


def test_tmux_session_death_ends_the_run(terminus_local):
    out = terminus_local([reply("exit\n"), reply("echo never\n")], grade=False)
    assert out.result.exit_status == "tmux_died" and out.result.n_turns == 2 and len(out.requests) == 1


def test_keys_sent_to_a_dead_session_are_an_agent_error(terminus_local):
    out = terminus_local([reply("exit\n", "echo after\n")], grade=False)
    assert isinstance(out.error, AgentError) and "send-keys" in str(out.error)


def test_a_failing_query_is_tried_three_times(terminus_local):
    refused = {"status": 400, "error": "bad request", "code": "invalid_request"}
    out = terminus_local(
        [refused, refused, reply(task_complete=True), reply(task_complete=True)], grade=False, model={"max_retries": 0}
    )
    assert out.error is None and out.result.exit_status == "completed" and len(out.requests) == 4


def test_cancellation_mid_turn_leaves_a_valid_trajectory(terminus_local):
    importlib.import_module("agentcompass.models.protocols.openai_chat")  # import the SDK now, not in the timed window
    replies = [reply("echo first\n"), {"text": reply("echo late\n"), "delay_s": 30}]
    out = terminus_local(replies, timeout=8, grade=False)
    assert isinstance(out.error, TimeoutError)
    t = out.trajectory
    assert t["schema_version"] == "ATIF-v1.2" and t["extra"]["exit_status"] == "agent_timeout"
    assert t["extra"]["n_episodes"] == 2 and len(t["steps"]) == 2  # first prompt + the finished episode


def test_context_overflow_without_summarization_propagates(terminus_local):
    overflow = {
        "status": 400,
        "error": "This model's maximum context length is 10 tokens",
        "code": "context_length_exceeded",
    }
    out = terminus_local([reply("echo a\n"), overflow], harness={"enable_summarize": False}, grade=False)
    assert isinstance(out.error, ContextLengthExceededError) and len(out.requests) == 2
    assert out.trajectory["extra"]["n_episodes"] == 2
