"""Every model protocol against the model client conformance suite (the official SDKs over loopback HTTP)."""

from __future__ import annotations

from agentcompass.testing.conformance.model import ModelClientSuite


class TestOpenAIChat(ModelClientSuite):
    PROTOCOL = "openai-chat"


class TestOpenAIResponses(ModelClientSuite):
    PROTOCOL = "openai-responses"


class TestAnthropicMessages(ModelClientSuite):
    PROTOCOL = "anthropic-messages"
    MODEL_ID = "claude-conformance"
