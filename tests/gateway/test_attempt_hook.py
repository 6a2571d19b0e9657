"""The gateway takes part in attempts through the orchestrator's generic per-attempt service hook."""

from __future__ import annotations

from types import SimpleNamespace

from agentcompass._orchestrator.scheduling.services import AttemptServices
from agentcompass.gateway.service import GatewayService


def test_the_gateway_attaches_itself_to_an_attempt_with_a_model():
    service = GatewayService()
    ctx = SimpleNamespace(gateway=None)
    assert AttemptServices.of({"gateway": service}, ctx, None, "t/attempt-1", None).parts == ()
    assert ctx.gateway is None
    parts = AttemptServices.of({"gateway": service}, ctx, object(), "t/attempt-1", None)
    (part,) = parts.parts
    assert ctx.gateway == part.endpoint  # nothing started: the session opens on the first ask
    assert parts.fatal is None and parts.limit_hit is None and service.gateway is None
    parts.close()
