"""The harness replay kit: a scripted conversation through a harness, the model requests recorded."""

from __future__ import annotations

from agentcompass.interfaces import AgentResult, Task
from agentcompass.testing.replay import replay


class EchoHarness:
    """Asks the model twice; runs each reply as a command and feeds the output back."""

    id = "echo"
    requires_model = True

    async def run(self, task, env, model, ctx):
        messages = [{"role": "user", "content": task.instruction}]
        for _ in range(2):
            reply = await model.complete(messages)
            messages.append({"role": "assistant", "content": reply.text})
            res = await env.exec(reply.text)
            messages.append({"role": "user", "content": res.output})
        return AgentResult(exit_status="completed", n_turns=2)


def test_replay_records_every_request_and_reads_files_back(tmp_path):
    task = Task(id="t1", instruction="write a file", workdir="/app")
    out = replay(
        EchoHarness(),
        task,
        ["echo hi > out.txt && cat out.txt", "echo second"],
        tmp_path,
        read_back=["/app/out.txt", "/app/missing.txt"],
    )
    assert out.error is None and out.result.n_turns == 2
    assert len(out.requests) == 2
    assert out.messages[0] == [{"role": "user", "content": "write a file"}]
    assert out.messages[1][-1] == {"role": "user", "content": "hi\n"}
    assert out.files == {"/app/out.txt": b"hi\n"}


def test_replay_returns_the_harness_error(tmp_path):
    task = Task(id="t2", instruction="x", workdir="/app")
    out = replay(EchoHarness(), task, [{"status": 401, "error": "bad key"}], tmp_path)
    assert out.result is None and out.error is not None and "401" in str(out.error)
    assert len(out.requests) == 1
