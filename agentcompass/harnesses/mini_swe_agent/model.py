"""mini-swe-agent's ``Model`` protocol backed by an agentcompass :class:`~agentcompass.interfaces.ModelClient`.

:class:`ToolcallModel` stands where the package's ``LitellmModel`` stands (the ``bash`` tool, actions from
tool calls) and :class:`TextbasedModel` where ``LitellmTextbasedModel`` stands (actions parsed from the text
with ``action_regex``). Everything but the HTTP call is the package's own code: the message preparation
(``extra`` dropped, thinking blocks ordered, cache-control marks), ``BASH_TOOL``, the action parsers with
their format errors, the observation formatters and the multimodal expansion. The call goes through the
client, so agentcompass's protocols, retries, provider limits, usage and cost apply; the config's
``model_kwargs`` are sent with it (``drop_params``, a LiteLLM-side switch, is not).

A reply becomes the assistant message LiteLLM would have produced (``content``, ``role``, ``tool_calls``,
plus ``function_call`` / ``provider_specific_fields`` as null), so trajectories read the same.
"""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace
from typing import Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import ConfigError
from agentcompass.interfaces import ChatToolCall, ModelClient, ModelResponse

from .bridge import LoopBridge

log = logging.getLogger("agentcompass.harnesses.mini_swe_agent")

# LiteLLM options of model_kwargs: dropped (a LiteLLM-side switch), or refused (the endpoint is agentcompass's)
LITELLM_ONLY = {"drop_params"}
LITELLM_CONNECTION = {
    "api_base",
    "base_url",
    "api_key",
    "api_version",
    "custom_llm_provider",
    "num_retries",
    "timeout",
    "mock_response",
    "fallbacks",
}
# model-section keys of the package's LiteLLM config that concern LiteLLM's own cost tables
LITELLM_COST_KEYS = {"cost_tracking", "litellm_model_registry"}
CACHE_CONTROL_NAMES = ("anthropic", "sonnet", "opus", "claude")  # get_model() marks these for caching
_WARNED: set[str] = set()


class AssistantMessage(TypedDict):
    """A model reply as mini-swe-agent's ``litellm`` model keeps it (LiteLLM's assistant message dump)."""

    content: str | None
    role: str
    tool_calls: list[ChatToolCall] | None
    function_call: None
    provider_specific_fields: None
    extra: NotRequired[dict[str, object]]


class AdapterModelConfig(BaseModel):
    """The model section of a mini-swe-agent config, as far as the client-backed model uses it."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    model_name: str
    model_kwargs: dict[str, Any] = {}
    set_cache_control: Literal["default_end"] | None = None
    format_error_template: str
    observation_template: str
    multimodal_regex: str = ""


class TextbasedModelConfig(AdapterModelConfig):
    action_regex: str


class ToolcallModel:
    """The ``litellm`` model class of mini-swe-agent, its HTTP call made by an agentcompass ``ModelClient``."""

    config_class: type[AdapterModelConfig] = AdapterModelConfig

    def __init__(self, client: ModelClient, bridge: LoopBridge, /, **kwargs: Any) -> None:
        self.config = self.config_class(**kwargs)
        self.client, self.bridge = client, bridge

    # ------------------------------------------------------------------ the call
    def _prepare_messages_for_api(self, messages: list[dict]) -> list[dict]:
        from minisweagent.models.utils.anthropic_utils import _reorder_anthropic_thinking_blocks
        from minisweagent.models.utils.cache_control import set_cache_control

        prepared = [{k: v for k, v in msg.items() if k != "extra"} for msg in messages]
        prepared = _reorder_anthropic_thinking_blocks(prepared)
        return set_cache_control(prepared, mode=self.config.set_cache_control)

    def _tools(self) -> list[dict[str, Any]] | None:
        from minisweagent.models.utils.actions_toolcall import BASH_TOOL

        return [BASH_TOOL]

    def _query(self, messages: list[dict], **kwargs: Any) -> ModelResponse:
        params = {k: v for k, v in (self.config.model_kwargs | kwargs).items() if k not in LITELLM_ONLY}
        return self.bridge.run(self.client.complete(messages, tools=self._tools(), **params))

    def query(self, messages: list[dict[str, str]], **kwargs: Any) -> AssistantMessage:
        from minisweagent.exceptions import FormatError
        from minisweagent.models import GLOBAL_MODEL_STATS

        response = self._query(self._prepare_messages_for_api(messages), **kwargs)
        cost_output = {"cost": response.usage.cost_usd or 0.0}  # the package sums numbers: an unknown price is 0
        GLOBAL_MODEL_STATS.add(cost_output["cost"])
        try:
            actions = self._parse_actions(response)
        except FormatError as e:
            e.messages[0]["extra"].update(cost_output)
            e.messages[0]["extra"]["response"] = _dump(response)
            raise
        message = _assistant_message(response)
        message["extra"] = {"actions": actions, "response": _dump(response), **cost_output, "timestamp": time.time()}
        return message

    def _parse_actions(self, response: ModelResponse) -> list[dict]:
        from minisweagent.models.utils.actions_toolcall import parse_toolcall_actions

        calls = [
            SimpleNamespace(id=c.id, function=SimpleNamespace(name=c.name, arguments=c.arguments))
            for c in response.tool_calls
        ]
        return parse_toolcall_actions(
            calls,
            format_error_template=self.config.format_error_template,
            template_kwargs={"finish_reason": response.finish_reason},
        )

    # ------------------------------------------------------------------ the rest of the Model protocol
    def format_message(self, **kwargs: Any) -> dict:
        from minisweagent.models.utils.openai_multimodal import expand_multimodal_content

        return expand_multimodal_content(kwargs, pattern=self.config.multimodal_regex)

    def format_observation_messages(
        self, message: dict, outputs: list[dict], template_vars: dict | None = None
    ) -> list[dict]:
        from minisweagent.models.utils.actions_toolcall import format_toolcall_observation_messages

        return format_toolcall_observation_messages(
            actions=message.get("extra", {}).get("actions", []),
            outputs=outputs,
            observation_template=self.config.observation_template,
            template_vars=template_vars,
            multimodal_regex=self.config.multimodal_regex,
        )

    def get_template_vars(self, **kwargs: Any) -> dict[str, object]:
        return self.config.model_dump()

    def serialize(self) -> dict:
        return {
            "info": {
                "config": {
                    "model": self.config.model_dump(mode="json"),
                    "model_type": f"{type(self).__module__}.{type(self).__name__}",
                }
            }
        }


class TextbasedModel(ToolcallModel):
    """The ``litellm_textbased`` model class: no tools, exactly one action matched by ``action_regex``."""

    config_class = TextbasedModelConfig

    def _tools(self) -> list[dict[str, Any]] | None:
        return None

    def _parse_actions(self, response: ModelResponse) -> list[dict]:
        from minisweagent.models.utils.actions_text import parse_regex_actions

        return parse_regex_actions(
            response.text or "",
            action_regex=self.config.action_regex,  # type: ignore
            format_error_template=self.config.format_error_template,
            template_kwargs={"finish_reason": response.finish_reason},
        )

    def format_observation_messages(
        self, message: dict, outputs: list[dict], template_vars: dict | None = None
    ) -> list[dict]:
        from minisweagent.models.utils.actions_text import format_observation_messages

        return format_observation_messages(
            outputs,
            observation_template=self.config.observation_template,
            template_vars=template_vars,
            multimodal_regex=self.config.multimodal_regex,
        )


def _assistant_message(response: ModelResponse) -> AssistantMessage:
    calls = [c.to_message() for c in response.tool_calls]
    content = response.text if response.text or not calls else None
    return {
        "content": content,
        "role": "assistant",
        "tool_calls": calls or None,
        "function_call": None,
        "provider_specific_fields": None,
    }


def _dump(response: ModelResponse) -> Any:
    raw = response.raw
    if raw is None:
        return {}
    try:
        return raw.model_dump(mode="json") if hasattr(raw, "model_dump") else dict(raw)
    except Exception:
        return repr(raw)


def model_settings(section: dict[str, Any], model_class: str, model_id: str) -> dict[str, Any]:
    """The config's model section for the client-backed model: ``model_name`` is the request's model; the
    package's defaults fill the templates (and ``action_regex``) a config leaves out; cache control follows
    ``get_model()``'s rule on the model name."""
    from .package import model_default

    for key in section.get("model_kwargs") or {}:
        if key in LITELLM_CONNECTION:
            raise ConfigError(
                f"harness mini_swe_agent: model.model_kwargs.{key} configures LiteLLM's connection; "
                f"here the endpoint is the request's model (--model-base-url, --model-api-key, "
                f"model.max_retries...)"
            )
    settings = {k: v for k, v in section.items() if k not in ("model_class", *LITELLM_COST_KEYS)}
    for key in sorted(LITELLM_COST_KEYS & set(section) - _WARNED):
        _WARNED.add(key)
        log.warning(
            "mini-swe-agent config: model.%s=%r has no effect here: the cost of a call comes from the "
            "agentcompass model's prices",
            key,
            section[key],
        )
    settings["model_name"] = model_id
    fields = ["format_error_template", "observation_template"]
    fields += ["action_regex"] if model_class == "litellm_textbased" else []
    for key in fields:
        if key not in settings:
            settings[key] = model_default(model_class, key)
    if any(s in model_id.lower() for s in CACHE_CONTROL_NAMES) and "set_cache_control" not in settings:
        settings["set_cache_control"] = "default_end"
    return settings
