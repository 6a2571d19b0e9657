"""From ``harness_params`` to the sections mini-swe-agent's classes are built from.

The config file is read as the package reads it; the harness's ``agent`` / ``model`` / ``environment`` /
``run`` dicts are merged over its sections with the package's ``recursive_merge`` (as ``-c key=value``
overrides are), then the explicit limits (``step_limit``, ``cost_limit``, ``wall_time_limit_s``,
``command_timeout_s``) win. Every section is checked when the harness is built, so a bad key fails before
anything runs, naming the key and the valid ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentcompass.errors import ConfigError

from . import package
from .config import MiniSweAgentConfig
from .environment import AdapterEnvironmentConfig, environment_settings
from .model import AdapterModelConfig, TextbasedModelConfig, model_settings

SECTIONS = ("agent", "model", "environment", "run")
RUN_KEYS = {"env_startup_command"}
AGENT_CLASSES = {"default", "minisweagent.agents.default.DefaultAgent"}


@dataclass
class Settings:
    name: str  # the config's name (a shipped config's, or the file's stem)
    path: Path
    model_class: str  # litellm | litellm_textbased
    agent: dict[str, Any]
    model: dict[str, Any]
    environment: dict[str, Any]
    run: dict[str, Any]
    cwd: str | None
    task_env: bool
    command_timeout_s: int | None

    def model_section(self, model_id: str) -> dict[str, Any]:
        return model_settings(self.model, self.model_class, model_id)

    def environment_section(self, workdir: str, task_env: dict[str, str]) -> tuple[str, dict[str, Any]]:
        cwd = str(self.environment.get("cwd", "")) if self.cwd == "config" else (self.cwd or workdir)
        return environment_settings(
            self.environment, cwd=cwd, timeout=self.command_timeout_s, task_env=task_env if self.task_env else None
        )


def resolve(config: MiniSweAgentConfig) -> Settings:
    from minisweagent.utils.serialize import recursive_merge

    name, path = package.config_file(config.config)
    data = package.read_config(path)
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(
            f"harness mini_swe_agent: config {str(path)!r} has unknown section(s) {unknown}; "
            f"valid: {', '.join(SECTIONS)}"
        )
    merged = recursive_merge(
        data, {s: getattr(config, s) for s in SECTIONS}, {"model": {"model_kwargs": config.model_kwargs}}
    )
    sections = {s: dict(merged.get(s) or {}) for s in SECTIONS}
    _limits(sections["agent"], config)
    if "model_name" in config.model:
        raise ConfigError(
            "harness mini_swe_agent: model.model_name is the request's model here (the MODEL "
            "argument / model.id); do not set it in harness_params"
        )
    model_class = _model_class(config, sections["model"], name)
    settings = Settings(
        name,
        path,
        model_class,
        sections["agent"],
        sections["model"],
        sections["environment"],
        sections["run"],
        config.cwd,
        config.task_env,
        config.command_timeout_s,
    )
    _check(settings)
    return settings


def _limits(agent: dict[str, object], config: MiniSweAgentConfig) -> None:
    pairs = {
        "step_limit": config.step_limit,
        "cost_limit": config.cost_limit,
        "wall_time_limit_seconds": config.wall_time_limit_s,
    }
    agent.update({k: v for k, v in pairs.items() if v is not None})


def _model_class(config: MiniSweAgentConfig, model: dict[str, Any], name: str) -> str:
    chosen = config.model_class or model.get("model_class") or package.CONFIG_MODEL_CLASS.get(name, "litellm")
    if chosen not in package.MODEL_CLASSES:
        raise ConfigError(
            f"harness mini_swe_agent: model.model_class={chosen!r}: with agentcompass the model is "
            f"driven as one of {', '.join(package.MODEL_CLASSES)} (tool calls or text); the "
            f"protocol (chat, responses, messages) is the model's api_protocol"
        )
    return chosen


def _check(s: Settings) -> None:
    from minisweagent.agents.default import AgentConfig

    agent = dict(s.agent)
    agent_class = agent.pop("agent_class", "default")
    if agent_class not in AGENT_CLASSES:
        raise ConfigError(
            f"harness mini_swe_agent: agent.agent_class={agent_class!r}: only mini-swe-agent's "
            f"DefaultAgent runs unattended ('default')"
        )
    _known(agent, AgentConfig.model_fields, "agent")
    _validate(AgentConfig, agent, "agent")
    model_cls = TextbasedModelConfig if s.model_class == "litellm_textbased" else AdapterModelConfig
    _validate(model_cls, s.model_section("model-id"), "model")
    _, env = s.environment_section("/", {})
    _validate(AdapterEnvironmentConfig, env, "environment")
    _known(s.run, dict.fromkeys(RUN_KEYS), "run")


def _known(section: Mapping[str, object], fields: Any, where: str) -> None:
    unknown = sorted(set(section) - set(fields))
    if unknown:
        raise ConfigError(
            f"harness mini_swe_agent: {where}.{unknown[0]} is not a key of mini-swe-agent's {where} "
            f"section; valid: {', '.join(sorted(fields))}"
        )


def _validate(model: Any, data: Mapping[str, object], where: str) -> None:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err.get("loc", ())) or "?"
        valid = ", ".join(sorted(model.model_fields))
        n = exc.error_count() - 1
        more = f" (and {n} more problem{'s' if n != 1 else ''})" if n else ""
        raise ConfigError(
            f"harness mini_swe_agent: {where}.{key}: {err.get('msg')} "
            f"(input {err.get('input')!r:.60}); valid keys: {valid}{more}"
        ) from None
