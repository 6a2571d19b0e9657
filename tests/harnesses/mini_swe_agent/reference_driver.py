"""The published agent, driven directly: run in a subprocess by the agreement test.

Reads a JSON list of scenarios on stdin. Each names a shipped config, the model class, a scripted server's
base URL, a workspace directory and overrides; the scenario runs as mini-swe-agent's SWE-bench runner runs an
instance (``DefaultAgent`` with the package's ``LitellmModel`` / ``LitellmTextbasedModel`` talking to the
OpenAI-compatible base URL through LiteLLM, and its ``LocalEnvironment``), then saves the trajectory with the
runner's extra info. Writes ``{"done": [...]}`` to the file named by the first argument (LiteLLM prints to
stdout). Nothing of agentcompass is imported here.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path


def run_one(s: dict) -> dict:
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.config import get_config_from_spec
    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.utils.serialize import recursive_merge

    config = recursive_merge(get_config_from_spec(s["config"]), s.get("overrides") or {})
    if s["model_class"] == "litellm_textbased":
        from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel as Model
    else:
        from minisweagent.models.litellm_model import LitellmModel as Model
    model_cfg = dict(config["model"])
    model_cfg["model_name"] = "openai/" + s["model_id"]
    model_cfg["model_kwargs"] = {**model_cfg.get("model_kwargs", {}), "api_base": s["base_url"], "api_key": "sk-ref"}
    model_cfg["litellm_model_registry"] = s["registry"]
    model = Model(**model_cfg)
    env_cfg = {k: v for k, v in config["environment"].items() if k not in ("environment_class", "interpreter")}
    env = LocalEnvironment(**{**env_cfg, "cwd": s["workdir"]})
    path = Path(s["trajectory"])
    agent = DefaultAgent(model, env, **{**config["agent"], "output_path": path})
    extra: dict = {}
    try:
        info = agent.run(s["task"])
        exit_status, result = info.get("exit_status"), info.get("submission")
    except Exception as e:
        exit_status, result = type(e).__name__, ""
        extra = {"traceback": traceback.format_exc(), "exception_str": str(e)}
    agent.save(
        path, {"info": {"exit_status": exit_status, "submission": result, **extra}, "instance_id": s["instance_id"]}
    )
    return {"name": s["name"], "exit_status": exit_status}


def main() -> None:
    scenarios = json.load(sys.stdin)
    done = [run_one(s) for s in scenarios]
    Path(sys.argv[1]).write_text(json.dumps({"done": done}))


if __name__ == "__main__":
    main()
