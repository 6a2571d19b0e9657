"""mini_swe_agent against the published agent: the same scripted replies on the same local task, through the
installed mini-swe-agent package driven directly (its DefaultAgent, LocalEnvironment and LiteLLM models on
the scripted server's OpenAI-compatible URL) and through our harness (replay kit, openai-chat client, local
environment). Every request body must be identical, and the trajectories must have the same shape.

Covered, for the tool-call config (swebench) and the text config (swebench_backticks): format errors (no
action, two actions, arguments that are not JSON, an unknown tool, a reply cut off at the token limit), a
command timeout, a long output (truncated), two tool calls in one reply, the submission, the step limit, the
cost limit and repeated format errors.

Normalised, and why:
- request headers are not compared (LiteLLM uses the SDK's synchronous client, we the asynchronous one:
  ``x-stainless-*`` headers differ); the bodies (model, messages, tools, parameters) are compared exactly;
- the reference's ``LocalEnvironment`` runs commands with ``sh -c`` whatever the config's ``interpreter``
  says, so our side is given ``interpreter: ["/bin/sh", "-c"]`` to run the very same shell;
- in the trajectories: timestamps, the provider's raw response dumps (LiteLLM's object vs the SDK's),
  ``agent.output_path`` and ``model.model_name`` (``openai/<id>`` for LiteLLM, the request's model id here)
  are not compared, nor the model config keys that only LiteLLM's cost tables read, nor the reference's
  ``model_kwargs.api_base`` / ``api_key`` (how LiteLLM is pointed at the server; ours is the model client's).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness
from agentcompass.interfaces import ComponentContext, Task
from agentcompass.testing.replay import replay
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses.mini_swe_agent.conftest import require_reference
from tests.harnesses.mini_swe_agent.scenarios import (
    PRICES,
    REGISTRY,
    TIMEOUT_S,
    Scenario,
    text_scenarios,
    toolcall_scenarios,
)

pytestmark = pytest.mark.slow
DRIVER = Path(__file__).with_name("reference_driver.py")
MODEL_ID = "scripted-model"
TASK = "calc.add(2, 3) returns -1 instead of 5. Fix it."
INSTANCE = "calc-1"
SCENARIOS = toolcall_scenarios() + text_scenarios()


def _overrides(s: Scenario) -> dict[str, Any]:
    return {"agent": dict(s.agent), "environment": {"timeout": TIMEOUT_S}}


def _reference(tmp: Path, repo: Path) -> dict[str, dict[str, Any]]:
    """Run every scenario through the published package (one subprocess); requests and trajectories."""
    tmp.mkdir(parents=True, exist_ok=True)
    registry = tmp / "registry.json"
    registry.write_text(json.dumps({f"openai/{MODEL_ID}": REGISTRY}))
    with contextlib.ExitStack() as stack:
        servers = {s.name: stack.enter_context(ScriptedModelServer(replies=s.replies)) for s in SCENARIOS}
        payload = []
        for s in SCENARIOS:
            work = tmp / s.name / "testbed"
            shutil.copytree(repo, work)
            payload.append(
                {
                    "name": s.name,
                    "config": s.config,
                    "model_class": s.model_class,
                    "model_id": MODEL_ID,
                    "base_url": servers[s.name].base_url,
                    "workdir": str(work),
                    "trajectory": str(tmp / s.name / f"{INSTANCE}.traj.json"),
                    "task": TASK,
                    "instance_id": INSTANCE,
                    "registry": str(registry),
                    "overrides": _overrides(s),
                }
            )
        out = tmp / "done.json"
        env = {
            **os.environ,
            "MSWEA_SILENT_STARTUP": "1",
            "MSWEA_GLOBAL_CONFIG_DIR": str(tmp / "mswea"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": "",
        }
        proc = subprocess.run(
            [sys.executable, str(DRIVER), str(out)],
            input=json.dumps(payload),
            text=True,
            capture_output=True,
            env=env,
            timeout=600,
            cwd=tmp,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert [d["name"] for d in json.loads(out.read_text())["done"]] == [s.name for s in SCENARIOS]
        return {
            s.name: {
                "requests": list(servers[s.name].requests),
                "trajectory": json.loads((tmp / s.name / f"{INSTANCE}.traj.json").read_text()),
            }
            for s in SCENARIOS
        }


def _ours(tmp: Path, repo: Path) -> dict[str, dict[str, Any]]:
    from agentcompass.environments.local import LocalConfig, LocalProvider

    results = {}
    for s in SCENARIOS:
        over = _overrides(s)
        params = MiniSweAgentConfig(
            config=s.config, agent=over["agent"], environment={**over["environment"], "interpreter": ["/bin/sh", "-c"]}
        )
        harness = MiniSweAgentHarness(params, ComponentContext(data_dir=tmp / "data"))
        provider = LocalProvider(LocalConfig(root_dir=str(tmp / s.name / "ws")), None)
        out = replay(
            harness,
            Task(id=INSTANCE, instruction=TASK, workdir="/testbed"),
            s.replies,
            tmp / s.name,
            provider=provider,
            files={"/testbed": repo},
            model={"id": MODEL_ID, "prices": PRICES},
        )
        assert out.error is None, f"{s.name}: {out.error!r}"
        results[s.name] = {
            "requests": out.requests,
            "result": out.result,
            "trajectory": json.loads(Path(out.result.trajectory_path).read_text()),
        }
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory, repo) -> dict[str, Any]:
    require_reference()
    tmp = tmp_path_factory.mktemp("msa-agreement")
    return {"ref": _reference(tmp / "ref", repo), "ours": _ours(tmp / "ours", repo)}


def test_every_request_is_identical(runs) -> None:
    differing, total = [], 0
    for s in SCENARIOS:
        ref, ours = runs["ref"][s.name]["requests"], runs["ours"][s.name]["requests"]
        assert len(ours) == len(ref), f"{s.name}: {len(ours)} requests, the published agent sent {len(ref)}"
        for i, (a, b) in enumerate(zip(ref, ours, strict=False)):
            total += 1
            if a["path"] != b["path"] or a["body"] != b["body"]:
                differing.append(f"{s.name} #{i + 1}: {_first_difference(a['body'], b['body'])}")
    assert total == 34
    assert differing == [], f"{len(differing)} of {total} requests differ:\n" + "\n".join(differing)


def _first_difference(a: Any, b: Any, where: str = "body") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key, "<missing>") != b.get(key, "<missing>"):
                return _first_difference(a.get(key, "<missing>"), b.get(key, "<missing>"), f"{where}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where}: published {str(a)[:200]!r} / ours {str(b)[:200]!r}"


def shape(traj: dict[str, Any]) -> dict[str, Any]:
    """What a trajectory must share with the published agent's (see the module docstring)."""
    info = traj["info"]
    agent_cfg = {k: v for k, v in info["config"]["agent"].items() if k != "output_path"}
    model_cfg = info["config"]["model"]
    messages = [
        (
            m["role"],
            sorted(m),
            sorted(m.get("extra", {})),
            m.get("content"),
            m.get("tool_calls"),
            m.get("tool_call_id"),
            {k: v for k, v in m.get("extra", {}).items() if k not in ("timestamp", "response", "cost")},
        )
        for m in traj["messages"]
    ]
    return {
        "keys": sorted(traj),
        "info_keys": sorted(info),
        "config_keys": sorted(info["config"]),
        "exit_status": info["exit_status"],
        "submission": info["submission"],
        "api_calls": info["model_stats"]["api_calls"],
        "agent": agent_cfg,
        "templates": {k: model_cfg.get(k) for k in ("observation_template", "format_error_template", "action_regex")},
        "model_kwargs": {k: v for k, v in model_cfg["model_kwargs"].items() if k not in ("api_base", "api_key")},
        "environment": {k: v for k, v in info["config"]["environment"].items() if k in ("env", "timeout")},
        "format": traj["trajectory_format"],
        "instance_id": traj["instance_id"],
        "messages": messages,
    }


def test_trajectories_have_the_same_shape(runs) -> None:
    for s in SCENARIOS:
        ref, ours = runs["ref"][s.name]["trajectory"], runs["ours"][s.name]["trajectory"]
        assert shape(ours) == shape(ref), s.name
        cost = ref["info"]["model_stats"]["instance_cost"]
        assert ours["info"]["model_stats"]["instance_cost"] == pytest.approx(cost)
        ref_costs = [m.get("extra", {}).get("cost") for m in ref["messages"]]
        our_costs = [m.get("extra", {}).get("cost") for m in ours["messages"]]
        assert [c is None for c in our_costs] == [c is None for c in ref_costs], s.name
        assert [c for c in our_costs if c is not None] == pytest.approx([c for c in ref_costs if c is not None])


def test_the_scenarios_end_as_intended(runs) -> None:
    """The comparisons above are only worth something if the runs did what the scenarios are for."""
    for s in SCENARIOS:
        traj, result = runs["ref"][s.name]["trajectory"], runs["ours"][s.name]["result"]
        assert traj["info"]["exit_status"] == s.exit_status == result.info["mini_exit_status"], s.name
    tool, text = runs["ours"]["tool-flow"], runs["ours"]["text-flow"]
    for run in (tool, text):
        assert run["result"].exit_status == "submitted"
        assert "+    return a + b" in run["result"].submission and run["result"].submission.startswith("diff --git")
        contents = [str(m["content"]) for m in run["trajectory"]["messages"]]
        assert any(f"timed out after {TIMEOUT_S} seconds" in c for c in contents)
        assert any("<elided_chars>\n3893 characters elided" in c for c in contents)
    assert tool["result"].n_format_errors == 3 and text["result"].n_format_errors == 3
    assert any("finish_reason=length" in str(m["content"]) for m in text["trajectory"]["messages"])
    step, cost = runs["ours"]["tool-step-limit"]["result"], runs["ours"]["text-cost-limit"]["result"]
    assert (step.exit_status, step.limit_hit, step.n_turns) == ("limits_exceeded", "step_limit", 2)
    assert (cost.exit_status, cost.limit_hit, cost.n_turns) == ("limits_exceeded", "cost_limit", 3)
    assert cost.usage.cost_usd == pytest.approx(1.2)
    assert runs["ours"]["tool-repeated-format-error"]["result"].exit_status == "repeated_format_error"
