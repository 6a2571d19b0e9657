"""Harbor 0.26's own adapter of an installed agent, run in the ``harbor`` reference venv against a recording
environment: what it executes (commands, their environment) and the files it uploads, for one model and task."""

from __future__ import annotations

import os
import shlex
from typing import Any

from agentcompass.testing.reference import run_reference
from tests.benchmarks.terminal_bench.reference_support import require_reference

TOKEN = "tok-agreement-1"
SCRIPT = r"""
import asyncio, json, os, sys, tempfile
from pathlib import Path
from harbor.agents.factory import AgentFactory
from harbor.models.agent.context import AgentContext
from harbor.models.trial.config import AgentConfig

class Result:
    return_code, stdout, stderr = 0, "", ""

class Recorder:
    default_user = None
    def __init__(self):
        self.execs, self.files = [], {}
    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        self.execs.append({"command": command, "env": dict(env or {})})
        return Result()
    async def upload_file(self, source, target):
        self.files[target] = Path(source).read_text()

p = json.load(sys.stdin)
os.environ[p["key_name"]] = p["key"]
agent = AgentFactory.create_agent_from_config(AgentConfig(**p["config"]), logs_dir=Path(tempfile.mkdtemp()))
env = Recorder()
asyncio.run(agent.run(p["instruction"], env, AgentContext()))
print(json.dumps({"execs": env.execs, "files": env.files}))
"""


def harbor_run(name: str, model: str, instruction: str, **config: Any) -> dict[str, Any]:
    """``{"execs": [{"command", "env"}], "files": {path: text}}`` of Harbor's ``name`` adapter for ``model``
    (``config``: more AgentConfig fields: base_url, model_api_key_name, model_api_format, kwargs)."""
    require_reference("harbor")
    key_name = config.get("model_api_key_name") or "OPENAI_API_KEY"
    payload = {
        "key_name": key_name,
        "key": TOKEN,
        "config": {"name": name, "model_name": model, **config},
        "instruction": instruction,
    }
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return run_reference("harbor", SCRIPT, payload, timeout=600)


def argv_after(command: str, program: str, stop: str = "2>&1") -> list[str]:
    """The arguments that follow ``program`` in a shell ``command`` (up to the redirection ``stop``)."""
    words = shlex.split(command.split(stop)[0])
    index = max(i for i, w in enumerate(words) if w == program or w.endswith("/" + program))
    return words[index + 1 :]
