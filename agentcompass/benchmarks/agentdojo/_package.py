"""The ``agentdojo`` package, imported lazily: its suites, attacks and pipelines (no text of it is held here).

Importing it needs the extra ``agentdojo`` and the package itself without its declared dependencies
(``pip install 'agentcompass[agentdojo]' && pip install --no-deps agentdojo==0.1.35``; ``agentcompass._deps.NO_DEPS``:
its langchain, python-dotenv and click are never imported here)."""

from __future__ import annotations

import functools
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.kit import require

EXTRA = "agentdojo"
# the package's defenses that run without a model of their own (pipeline changes only); the others are refused
MODEL_FREE_DEFENSES = ("spotlighting_with_delimiting", "repeat_user_prompt")
REFUSED_DEFENSES = {
    "tool_filter": "it asks an OpenAI model of its own (OpenAILLMToolFilter) to filter the tools",
    "transformers_pi_detector": "it needs the downloaded model protectai/deberta-v3-base-prompt-injection-v2 "
    "(torch, transformers)",
}
NO_ATTACK = "none"


def module(name: str) -> Any:
    """``agentdojo.<name>``; a DependencyError naming the extra when the package is missing."""
    require("agentdojo", EXTRA, purpose="the AgentDojo suites, tools and checkers")
    return require(f"agentdojo.{name}", EXTRA, purpose="the AgentDojo suites, tools and checkers")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.lstrip("v").split(".") if p.isdigit())


def versions() -> list[str]:
    """The benchmark versions the package registers, oldest first."""
    registry = module("task_suite.load_suites")._SUITES
    return sorted((v for v in registry if registry[v]), key=_version_key)


def latest_version() -> str:
    return versions()[-1]


@functools.cache
def suites(version: str) -> dict[str, Any]:
    """The package's suites of ``version`` by name (``get_suites``); ConfigError for an unknown version."""
    known = versions()
    if version not in known:
        raise ConfigError(f"benchmark.benchmark_version: {version!r} is not an AgentDojo version; valid: {known}")
    return dict(module("task_suite.load_suites").get_suites(version))


def check_defense(defense: str | None) -> None:
    """ConfigError for a defense the package does not define, or one refused here (one line saying why)."""
    if defense is None:
        return
    defined = list(module("agent_pipeline.agent_pipeline").DEFENSES)
    if defense in REFUSED_DEFENSES:
        raise ConfigError(f"benchmark.defense: {defense!r} is not supported here: {REFUSED_DEFENSES[defense]}")
    if defense not in defined or defense not in MODEL_FREE_DEFENSES:
        raise ConfigError(f"benchmark.defense: {defense!r} is not an AgentDojo defense; valid: {MODEL_FREE_DEFENSES}")


def check_attack(attack: str) -> None:
    if attack == NO_ATTACK:
        return
    module("attacks")  # registers the package's attacks
    known = sorted(module("attacks.attack_registry").ATTACKS)
    if attack not in known:
        raise ConfigError(f"benchmark.attack: {attack!r} is not an AgentDojo attack; valid: none, {', '.join(known)}")


def pipeline(llm: Any, defense: str | None) -> Any:
    """The package's pipeline for ``llm`` (a pipeline element) as ``AgentPipeline.from_config`` builds it: the
    default system message, the user's prompt, the tools-execution loop, the defense's changes."""
    ap = module("agent_pipeline.agent_pipeline")
    config = ap.PipelineConfig(llm=llm, model_id=None, defense=defense, system_message_name=None, system_message=None)
    return ap.AgentPipeline.from_config(config)


def load_attack(attack: str, suite: Any, target: Any) -> Any:
    """The package's attack ``attack`` on ``suite`` against ``target`` (the pipeline, whose name attacks read). A
    pipeline named after a model the package has no name for: the attack addresses the model by the package's
    ``DEFAULT_MODEL_NAME`` (as its ``*_no_model_name`` attacks do)."""
    module("attacks")  # registers the package's attacks
    registry = module("attacks.attack_registry")
    try:
        return registry.load_attack(attack, suite, target)
    except ValueError as exc:
        if "model name" not in str(exc):
            raise
    base = module("attacks.base_attacks")
    named = target.name
    target.name = next(iter(module("models").MODEL_NAMES))
    try:
        made = registry.load_attack(attack, suite, target)
    finally:
        target.name = named
    made.model_name = base.DEFAULT_MODEL_NAME
    return made


def tool_schemas(suite: Any) -> list[dict[str, object]]:
    """The suite's tools in OpenAI chat form, as the package's OpenAI LLM element sends them."""
    runtime = module("functions_runtime").FunctionsRuntime(suite.tools)
    return [
        {
            "type": "function",
            "function": {
                "name": f.name,
                "description": f.description,
                "parameters": f.parameters.model_json_schema(),
            },
        }
        for f in runtime.functions.values()
    ]
