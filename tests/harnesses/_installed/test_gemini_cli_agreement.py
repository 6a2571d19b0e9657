"""Gemini CLI is run as Harbor 0.26 runs it: Harbor's own adapter (``harbor/agents/installed/gemini_cli.py``, in its
Python 3.12 venv) is driven with a recording environment for the same model, endpoint, key and instruction, and its
command line, environment variables and settings file are compared with ours. The differences are the ones
docs/gemini_cli.md gives: the program is started by path on the delivered Node (Harbor: ``gemini`` on the PATH
after nvm), and the settings also turn usage statistics, telemetry and auto-update off."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentcompass.harnesses._installed import gateway
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import Run
from agentcompass.harnesses.gemini_cli import GeminiCliConfig, GeminiCliHarness
from agentcompass.interfaces import ComponentContext, Task
from agentcompass.testing.reference import run_reference

BASE, TOKEN = "http://172.17.0.1:4000", "acgw-token-for-the-agreement"
OURS_ONLY = {  # docs/gemini_cli.md: nothing that needs the internet
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
CASES = [
    {"model": "gemini-3-flash-preview", "instruction": "it's: `x` $HOME", "options": {"disable_web_search": False}},
    {"model": "gemini-3-pro-preview", "instruction": "do it", "options": {"reasoning_effort": "high"}},
]
HARBOR_SIDE = r"""
import asyncio, json, sys, tempfile
from pathlib import Path
from types import SimpleNamespace
from harbor.agents.installed.gemini_cli import GeminiCli
from harbor.models.agent.context import AgentContext

out = []
for case in json.load(sys.stdin):
    agent = GeminiCli(logs_dir=Path(tempfile.mkdtemp()), model_name="gemini/" + case["model"], base_url=case["base"],
                      extra_env={"GEMINI_API_KEY": case["token"]}, **case["options"])
    seen = []

    async def record(environment, command, user=None, env=None, cwd=None, timeout_sec=None):
        seen.append({"command": command, "env": dict(env or {})})
        return SimpleNamespace(stdout="", stderr="", return_code=0)

    agent._exec = record
    environment = SimpleNamespace(default_user=None)
    asyncio.run(agent.configure(environment))
    asyncio.run(agent.run(case["instruction"], environment, AgentContext()))
    out.append(seen)
print(json.dumps(out))
"""


def _settings(command: str) -> dict[str, Any]:
    """The JSON a ``printf %s '<json>' > ~/.gemini/settings.json`` command writes."""
    words = shlex.split(command)
    assert words[-2:] == [">", "~/.gemini/settings.json"], command
    return json.loads(words[words.index("%s") + 1])


def _harbor_run(seen: list[dict[str, Any]]) -> tuple[list[str], dict[str, str], dict[str, Any], str, list[str]]:
    """Harbor's gemini argv, its environment, the settings file it runs with, its log and its session copies."""
    (run,) = [s for s in seen if " gemini --yolo " in s["command"]]
    words = shlex.split(run["command"].split("; gemini ", 1)[1].split(" 2>&1 ", 1)[0])
    written = [s for s in seen if "printf %s" in s["command"] and "settings.json" in s["command"]]
    log = re.search(r"tee (\S+)", run["command"])[1]
    copies = sorted(set(re.findall(r"/logs/agent/(gemini-cli\.trajectory\.jsonl?)", json.dumps(seen))))
    return words, run["env"], _settings(written[-1]["command"]), log, copies


def _ours(case: dict[str, Any]) -> tuple[list[str], dict[str, str], dict[str, Any]]:
    opts = dict(case["options"])
    effort = opts.pop("reasoning_effort", None)
    cfg = GeminiCliConfig(model_params={"reasoning_effort": effort} if effort else {}, **opts)
    harness = GeminiCliHarness(cfg, ComponentContext(data_dir=Path("/tmp/agents")))
    plat = Platform("linux", "x64", "glibc", (2, 36))
    end = gateway.Endpoint(BASE, TOKEN, case["model"])
    run = Run(Task(id="t", instruction=case["instruction"]), SimpleNamespace(path=lambda p: p), SimpleNamespace(),
              plat, end, harness.parts(plat), "/app", "/logs/agent")  # type: ignore[arg-type]  # fmt: skip
    words = shlex.split(harness.command(run))
    argv = words[words.index(f"{run.part_dir(0)}/bundle/gemini.js") + 1 :]
    return argv, harness.variables(run), harness.settings(case["model"], run)


def test_command_line_environment_and_settings_equal_harbors() -> None:
    # our default disable_web_search is true, Harbor's false (docs/agents.md): Harbor is told ours explicitly
    default = {"disable_web_search": GeminiCliConfig().disable_web_search}
    asked = [{**c, "options": {**default, **c["options"]}, "base": BASE, "token": TOKEN} for c in CASES]
    theirs = run_reference("harbor", HARBOR_SIDE, asked, timeout=300)
    assert len(theirs) == len(CASES)
    for case, seen in zip(CASES, theirs, strict=True):
        argv, env, settings, log, copies = _harbor_run(seen)
        our_argv, our_env, our_settings = _ours(case)
        assert our_argv == argv, case
        assert our_env == env, case  # names and values: trust, the key (the gateway token), the base URL
        assert {k: v for k, v in our_settings.items() if k not in OURS_ONLY} == settings, case
        assert {k: our_settings[k] for k in OURS_ONLY} == OURS_ONLY
        assert log == f"/logs/agent/{GeminiCliHarness.NATIVE_LOG}"
        assert copies == sorted(GeminiCliHarness.SESSION_DIRS)
