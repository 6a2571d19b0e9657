"""Every model protocol against the model client conformance suite (the official SDKs over loopback HTTP)."""

from __future__ import annotations

from agentcompass.testing.conformance.model import ModelClientSuite


class TestOpenAIChat(ModelClientSuite):
    PROTOCOL = "openai-chat"


class TestOpenAIResponses(ModelClientSuite):
    PROTOCOL = "openai-responses"
    CONTEXT_ERROR = {"status": 400, "error": "Your input exceeds the context window of this model."}


class TestAnthropicMessages(ModelClientSuite):
    PROTOCOL = "anthropic-messages"
    MODEL_ID = "claude-conformance"
    CONTEXT_ERROR = {"status": 400, "error": "prompt is too long: 210000 tokens > 200000 maximum"}


class TestGoogleGenai(ModelClientSuite):
    PROTOCOL = "google-genai"
    MODEL_ID = "gemini-conformance"
    CONTEXT_ERROR = {"status": 400, "error": "The input token count (1200000) exceeds the maximum number of tokens"}
