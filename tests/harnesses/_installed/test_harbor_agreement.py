"""Agreement with Harbor 0.26's adapters (the ``harbor`` reference venv): for the same model, endpoint and task,
the agent's command line, the names of its environment variables and its settings files are those Harbor's adapter
produces, except where docs/agents.md and the agent's page say why."""

from __future__ import annotations

import json
import shlex
from types import SimpleNamespace
from typing import Any

import pytest

from agentcompass.harnesses._installed import gateway
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import Run
from agentcompass.interfaces import Task
from tests.harnesses._installed.harbor_support import TOKEN, argv_after, harbor_run

pytestmark = pytest.mark.slow  # each test imports Harbor in its venv (about 20 s)
GLIBC = Platform("linux", "x64", "glibc", (2, 36))
BASE = "http://172.17.0.1:4000"
INSTRUCTION = "Create hello.txt in /app; it's `quoted` and $HOME stays."


class _Env:
    def path(self, p: str) -> str:
        return p


def _run(harness: Any, model: str = "m-1") -> Run:
    end = gateway.Endpoint(BASE, TOKEN, model)
    task = Task(id="t", instruction=INSTRUCTION)
    run = Run(task, _Env(), SimpleNamespace(), GLIBC, end, [], "/app", "/logs/agent")  # type: ignore[arg-type]
    run.parts = harness.parts(GLIBC)
    return run


def test_pi_agrees_with_harbor() -> None:
    """Differences (docs/pi.md): the provider is named ``agentcompass`` (Harbor's: ``harbor-endpoint``); ours adds
    PI_OFFLINE, PI_SKIP_VERSION_CHECK and PI_TELEMETRY to keep pi off the internet."""
    from agentcompass.harnesses.pi import PiConfig, PiHarness

    for effort in (None, "xhigh"):
        kwargs: dict[str, Any] = {"version": "1.6.0", **({"reasoning_effort": effort} if effort else {})}
        ref = harbor_run(
            "pi",
            "openai/m-1",
            INSTRUCTION,
            base_url=f"{BASE}/v1",
            model_api_key_name="OPENAI_API_KEY",
            model_api_format="openai_chat_completions",
            kwargs=kwargs,
        )
        ours = PiHarness(PiConfig(model_params={"reasoning_effort": effort} if effort else {}), None)
        run = _run(ours)
        (launch,) = [e for e in ref["execs"] if " --print " in e["command"]]
        theirs = [("agentcompass" if a == "harbor-endpoint" else a) for a in argv_after(launch["command"], "pi")]
        assert ours.flags(run) == theirs
        assert "PI_CODING_AGENT_DIR=/tmp/harbor-pi-agent" in launch["command"]
        assert "PI_CODING_AGENT_DIR=/tmp/harbor-pi-agent" in ours.command(run)
        assert 'grep -v \'"type":"message_update"\'' in launch["command"] and "message_update" in ours.command(run)
        assert set(ours.variables(run)) - {"PI_OFFLINE", "PI_SKIP_VERSION_CHECK", "PI_TELEMETRY"} == set(launch["env"])
        assert ours.variables(run)["OPENAI_API_KEY"] == launch["env"]["OPENAI_API_KEY"] == TOKEN
        models = json.loads(ref["files"]["/tmp/harbor-pi-agent/models.json"])
        models["providers"] = {"agentcompass": models["providers"].pop("harbor-endpoint")}
        assert ours.models_json(run) == models
        assert ours.config_dir(run) == "/tmp/harbor-pi-agent"


def test_cline_agrees_with_harbor() -> None:
    """Differences (docs/cline.md): the provider is ``openai-compatible`` with the gateway's URL in
    ``providers.json`` (Harbor gives Cline no base URL, so ``-P openai`` goes to OpenAI's service); ours adds
    CLINE_NO_AUTO_UPDATE."""
    from agentcompass.harnesses.cline import ClineConfig, ClineHarness
    from agentcompass.harnesses.cline.agent import GLOBAL_STATE

    kwargs = {"thinking": "high", "max_consecutive_mistakes": 3}
    ref = harbor_run("cline-cli", "openai/m-1", INSTRUCTION, kwargs=kwargs)
    setup, launch = ref["execs"][0], ref["execs"][1]
    ours = ClineHarness(ClineConfig(model_params={"reasoning_effort": "high", "max_consecutive_mistakes": 3}), None)
    run = _run(ours)
    state = shlex.split(setup["command"].split(" echo ", 1)[1].split(" > ", 1)[0])[0]
    assert json.loads(state) == GLOBAL_STATE and "~/.cline/data/globalState.json" in setup["command"]
    theirs = argv_after(launch["command"], "cline", stop="< /dev/null")
    assert theirs[:2] == ["-P", "openai"]
    assert ours.flags() + ["--", INSTRUCTION.strip()] == ["-P", "openai-compatible", *theirs[2:]]
    assert argv_after(ours.command(run), "cline", stop="; status=") == ["-P", "openai-compatible", *theirs[2:]]
    assert 'echo "__CLINE_EXIT=' in launch["command"] and 'echo "__CLINE_EXIT=' in ours.command(run)
    env = ours.variables(run)
    assert set(env) - {"CLINE_NO_AUTO_UPDATE"} == set(launch["env"]) == set(setup["env"])
    assert {k: env[k] for k in ("API_KEY", "MODELID", "CLINE_WRITE_PROMPT_ARTIFACTS", "CLINE_PROMPT_ARTIFACT_DIR")} == {
        k: launch["env"][k] for k in ("API_KEY", "MODELID", "CLINE_WRITE_PROMPT_ARTIFACTS", "CLINE_PROMPT_ARTIFACT_DIR")
    }
    (cleanup,) = ref["execs"][2:]
    assert "~/.cline/data/sessions" in cleanup["command"] and "/logs/agent/sessions" in cleanup["command"]
    settings = ours.providers(run)["providers"]["openai-compatible"]["settings"]
    assert settings == {"provider": "openai-compatible", "model": "m-1", "baseUrl": f"{BASE}/v1"}


def test_every_harbor_agent_has_a_row_in_agents_md() -> None:
    """docs/agents.md's table names each agent of Harbor 0.26's registry (read from the package)."""
    from pathlib import Path

    from agentcompass.testing.reference import run_reference

    script = "import json; from harbor.agents.factory import AgentFactory as F; print(json.dumps(F.registered_names()))"
    names = run_reference("harbor", script)
    text = Path(__file__).resolve().parents[3].joinpath("docs", "agents.md").read_text()
    table = text[text.index("## Every agent") :]
    assert len(names) >= 40
    assert [n for n in names if f"`{n}`" not in table] == []
