"""mini_swe_agent: the loop against a real local environment (temporary git repo) and the scripted server."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from agentcompass._config.registry import build
from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.errors import ConfigError, ModelError
from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness
from agentcompass.interfaces import AttemptContext, ComponentContext, EnvSpec, Task
from agentcompass.testing.scripted_server import ScriptedModelServer

SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"


def bash(cmd: str, thought: str = "THOUGHT: next step.") -> str:
    return f"{thought}\n\n```bash\n{cmd}\n```\n"


def make_model(srv, tmp: Path, **extra):
    cfg = {"_target_": "agentcompass.models.client.Model", "id": "m", "base_url": srv.base_url,
           "api_key": "sk-test", "api_protocol": "openai-chat", "max_retries": 0, **extra}
    return build("model", cfg, ComponentContext(data_dir=tmp)).fork()


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / "hello.py").write_text("print('hello')\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return repo


def drive(tmp_path: Path, replies: list, harness_cfg: dict | None = None, model_extra: dict | None = None):
    """Run the harness once; return (result or exception, trajectory dict, server requests)."""
    harness = MiniSweAgentHarness(MiniSweAgentConfig(**(harness_cfg or {})))
    task = Task(id="demo__repo-1", instruction="Make hello.py print 'hello, world'.", workdir="/work")
    attempt_dir = tmp_path / "attempt"
    attempt_dir.mkdir()

    async def go():
        provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)
        env = await provider.open(EnvSpec(task_id=task.id, workdir="/work"))
        await env.upload(make_repo(tmp_path), "/work")
        with ScriptedModelServer(replies=replies) as srv:
            model = make_model(srv, tmp_path, **(model_extra or {}))
            ctx = AttemptContext(task=task, attempt=1, attempt_dir=attempt_dir, benchmark=None)
            try:
                return await harness.run(task, env, model, ctx), srv.requests
            except Exception as exc:  # noqa: BLE001 - returned to the test
                return exc, srv.requests
            finally:
                await model.aclose()
                await env.close()

    result, requests = asyncio.run(go())
    traj = json.loads((attempt_dir / "demo__repo-1.traj.json").read_text())
    return result, traj, requests


EDIT = "sed -i \"s/'hello'/'hello, world'/\" hello.py && cat hello.py"


def test_format_errors_timeout_edit_and_submit(tmp_path):
    replies = [
        "THOUGHT: two at once.\n```bash\nls\n```\n```bash\npwd\n```\n",
        "I will just think about it.",
        bash("sleep 5; echo never"),
        bash(EDIT),
        bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
    ]
    res, traj, requests = drive(tmp_path, replies, {"command_timeout_s": 1})
    assert res.exit_status == "submitted" and res.limit_hit is None
    assert res.n_turns == 5 and res.n_format_errors == 2 and res.usage.n_calls == 5
    assert res.submission.startswith("diff --git a/hello.py b/hello.py") and "+print('hello, world')" in res.submission
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" not in res.submission
    assert res.trajectory_path.endswith("demo__repo-1.traj.json")
    assert traj["trajectory_format"] == "mini-swe-agent-1" and traj["instance_id"] == "demo__repo-1"
    info = traj["info"]
    assert info["exit_status"] == "Submitted" and info["submission"] == res.submission
    assert info["model_stats"] == {"instance_cost": 0.0, "api_calls": 5}
    assert {"agent", "model", "environment", "agent_type", "model_type", "environment_type"} <= set(info["config"])
    assert "mini_version" in info
    roles = [m["role"] for m in traj["messages"]]
    assert roles == ["system", "user"] + ["assistant", "user"] * 5
    msgs = [m["content"] for m in traj["messages"]]
    assert "contained 2" in msgs[3] and "contained 0" in msgs[5]
    assert "did not finish within 1 seconds" in msgs[7] and "sleep 5" in msgs[7]
    assert "<returncode>0</returncode>" in msgs[9] and "print('hello, world')" in msgs[9]
    assert msgs[11] == res.submission
    # what the model saw: the format error and the timeout were fed back as user turns
    last = requests[-1]["body"]["messages"]
    assert len(last) == 10 and all(set(m) == {"role", "content"} for m in last)


def test_each_command_runs_in_a_fresh_subshell_in_the_workdir(tmp_path):
    replies = [bash("cd /tmp && export FOO=bar && pwd"), bash('pwd; echo "FOO=${FOO:-}"; echo "PAGER=$PAGER"'),
               bash(SUBMIT)]
    res, traj, _ = drive(tmp_path, replies)
    obs = traj["messages"][5]["content"]
    assert obs.splitlines()[2].endswith("/work") and "FOO=\n" in obs and "PAGER=cat" in obs
    assert res.exit_status == "submitted" and res.submission == ""      # nothing changed: an empty diff


def test_long_output_is_truncated_head_and_tail(tmp_path):
    cmd = "python3 -c \"print('H' * 6000 + 'M' * 3000 + 'T' * 6000)\""
    res, traj, _ = drive(tmp_path, [bash(cmd), bash(SUBMIT)])
    obs = traj["messages"][3]["content"]
    assert "<output_head>\n" + "H" * 5000 + "\n</output_head>" in obs
    assert "<output_tail>\n" + "T" * 4999 + "\n\n</output_tail>" in obs      # print() adds the newline
    assert "<elided_chars>\n5001 characters elided\n</elided_chars>" in obs and "M" not in obs


def test_marker_must_be_the_first_line_and_exit_code_zero(tmp_path):
    replies = [bash("echo before && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
               bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && false"),
               bash("printf '\\n\\n  COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\npatch-text\\n'")]
    res, traj, _ = drive(tmp_path, replies)
    assert res.exit_status == "submitted" and res.n_turns == 3 and res.submission == "patch-text\n"


def test_repeated_format_errors_end_the_run(tmp_path):
    replies = [{"text": "THOUGHT: a very long", "finish_reason": "length"}, "```bash\nls\n```\n```bash\nls\n```",
               "still none"]
    res, traj, _ = drive(tmp_path, replies)
    assert res.exit_status == "repeated_format_error" and res.submission == "" and res.n_format_errors == 3
    assert traj["info"]["exit_status"] == "RepeatedFormatError"
    assert "cut off because it was too long" in traj["messages"][3]["content"]
    assert "cut off" not in traj["messages"][5]["content"]


def test_a_clean_step_resets_the_format_error_count(tmp_path):
    replies = ["none", "none", bash("echo ok"), "none", "none", bash(SUBMIT)]
    res, _, _ = drive(tmp_path, replies)
    assert res.exit_status == "submitted" and res.n_format_errors == 4


def test_undecodable_bytes_are_replaced(tmp_path):
    res, traj, _ = drive(tmp_path, [bash("printf 'ok\\377\\376end\\n'"), bash(SUBMIT)])
    assert "ok\ufffd\ufffdend" in traj["messages"][3]["content"]


def test_step_limit(tmp_path):
    res, traj, requests = drive(tmp_path, [bash("echo one"), bash("echo two"), bash(SUBMIT)], {"step_limit": 2})
    assert (res.exit_status, res.limit_hit, res.submission, res.n_turns) == ("limits_exceeded", "step_limit", "", 2)
    assert len(requests) == 2 and traj["info"]["exit_status"] == "LimitsExceeded"


def test_cost_limit_counts_the_model_price(tmp_path):
    prices = {"prices": {"input_per_mtok": 1000.0, "output_per_mtok": 1000.0}}
    res, traj, requests = drive(tmp_path, [bash("echo one"), bash("echo two")], {"cost_limit": 0.001}, prices)
    assert (res.exit_status, res.limit_hit) == ("limits_exceeded", "cost_limit") and len(requests) == 1
    assert traj["info"]["model_stats"]["instance_cost"] >= 0.001 and res.usage.cost_usd >= 0.001


def test_wall_time_limit(tmp_path):
    res, _, requests = drive(tmp_path, [bash("sleep 1.2"), bash("echo two")], {"wall_time_limit_s": 1})
    assert (res.exit_status, res.limit_hit) == ("limits_exceeded", "wall_time") and len(requests) == 1


def test_model_error_propagates_and_the_trajectory_is_kept(tmp_path):
    res, traj, _ = drive(tmp_path, [bash("echo one"), {"status": 401, "error": "bad key"}])
    assert isinstance(res, ModelError)
    assert traj["info"]["exit_status"] == type(res).__name__ and "traceback" in traj["info"]
    assert len(traj["messages"]) == 4


def test_templates_can_be_replaced_and_unknown_variables_are_config_errors(tmp_path):
    tdir = tmp_path / "tpl"
    tdir.mkdir()
    (tdir / "instance.j2").write_text("TASK={{ task }} WD={{ workdir }}")
    res, traj, _ = drive(tmp_path, [bash(SUBMIT)], {"template_dir": str(tdir)})
    assert traj["messages"][1]["content"] == "TASK=Make hello.py print 'hello, world'. WD=/work"
    (tdir / "bad.j2").write_text("{{ nope }}")
    harness = MiniSweAgentHarness(MiniSweAgentConfig(instance_template=str(tdir / "bad.j2")))
    with pytest.raises(ConfigError, match="instance_template uses an unknown variable: 'nope' is undefined"):
        harness.templates.render("instance_template", task="x")
    with pytest.raises(ConfigError, match="system_template='missing.j2' not found"):
        MiniSweAgentHarness(MiniSweAgentConfig(system_template="missing.j2"))


def test_config_validation():
    with pytest.raises(ValueError, match="exactly one capturing group"):
        MiniSweAgentConfig(action_regex="```bash(.*)(x)```")
    cfg = MiniSweAgentConfig()
    assert (cfg.step_limit, cfg.cost_limit, cfg.command_timeout_s, cfg.max_consecutive_format_errors) == \
        (250, 3.0, 60.0, 3)
    assert cfg.submit_command == SUBMIT and cfg.env["PAGER"] == "cat"


def test_cancellation_keeps_the_trajectory(tmp_path):
    """An agent timeout cancels the run: the trajectory says so and the cancellation propagates."""
    harness = MiniSweAgentHarness(MiniSweAgentConfig())
    task = Task(id="demo__repo-1", instruction="x", workdir="/work")
    (tmp_path / "attempt").mkdir()

    async def go():
        provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)
        env = await provider.open(EnvSpec(task_id=task.id, workdir="/work"))
        with ScriptedModelServer(replies=[bash("touch started && sleep 60")]) as srv:
            model = make_model(srv, tmp_path)
            ctx = AttemptContext(task=task, attempt=1, attempt_dir=tmp_path / "attempt", benchmark=None)
            running = asyncio.ensure_future(harness.run(task, env, model, ctx))
            try:
                for _ in range(600):                      # until the command runs
                    if Path(env.path("/work/started")).exists() or running.done():
                        break
                    await asyncio.sleep(0.1)
                running.cancel()
                await running
            finally:
                await model.aclose()
                await env.close()

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(go())
    traj = json.loads((tmp_path / "attempt" / "demo__repo-1.traj.json").read_text())
    assert traj["info"]["exit_status"] == "AgentTimeout" and traj["info"]["model_stats"]["api_calls"] == 1
    assert [m["role"] for m in traj["messages"]] == ["system", "user", "assistant"]
