"""The parts an attempt's phases share: its resolved timeouts, the failure classifier and record, and the
generic per-attempt service hook."""

from __future__ import annotations

import asyncio
import errno
import logging
from types import SimpleNamespace

from agentcompass._config.schema import TimeoutsConfig
from agentcompass._orchestrator.record.outcome import new_outcome
from agentcompass._orchestrator.record.store import AttemptRecord
from agentcompass._orchestrator.scheduling.failures import FailureRecord, classify_failure, stopping_error
from agentcompass._orchestrator.scheduling.services import AttemptServices
from agentcompass._orchestrator.scheduling.timeouts import SETUP_TIMEOUT_S, VERIFY_WATCHDOG_MARGIN_S, attempt_timeouts
from agentcompass.errors import ModelEndpointDownError, StorageError, VerifierError
from agentcompass.interfaces import AttemptStatus, Task


def _config(**timeouts: float) -> SimpleNamespace:
    return SimpleNamespace(execution=SimpleNamespace(timeouts=TimeoutsConfig(**timeouts)))


def test_timeouts_resolve_the_task_and_the_config_once():
    task = Task(id="t", instruction="x", agent_timeout_s=30, verifier_timeout_s=100)
    same, t = attempt_timeouts(task, _config())
    assert same is task and t.agent == 30 and t.env_open == 900 and t.close == 60
    assert t.setup == SETUP_TIMEOUT_S and t.verify == 100 * 1.5 + VERIFY_WATCHDOG_MARGIN_S
    changed, t = attempt_timeouts(task, _config(agent=5, verifier=10, close=3))
    assert (changed.agent_timeout_s, changed.verifier_timeout_s) == (5, 10)
    assert (t.agent, t.verify, t.close) == (5, 10 * 1.5 + VERIFY_WATCHDOG_MARGIN_S, 3)
    _, t = attempt_timeouts(Task(id="t", instruction="x"), _config())
    assert t.agent is None and t.verify == 1800 * 1.5 + VERIFY_WATCHDOG_MARGIN_S


def test_the_classifier_types_a_full_disk_and_keeps_other_errors():
    full = OSError(errno.ENOSPC, "No space left on device", "/x/result.json")
    assert isinstance(classify_failure(full), StorageError)
    cancel = asyncio.CancelledError()
    assert classify_failure(cancel) is cancel
    other = RuntimeError("a failure")
    assert classify_failure(other) is other


def test_a_failure_is_recorded_once_and_a_later_one_is_the_attempts_end(tmp_path, caplog):
    record = AttemptRecord(tmp_path / "attempt-1", 1)
    record.mkdir()
    out = new_outcome("t", 1, 1, record, False)
    failures = FailureRecord(out, record, logging.getLogger("agentcompass.test"))
    first, second = RuntimeError("agent crashed"), VerifierError("no reward")
    with caplog.at_level(logging.DEBUG, logger="agentcompass.test"):
        failures.add(first)
        failures.add(first)
        failures.add(second)
    assert out.status == AttemptStatus.ERROR and out.error_type == "VerifierError"
    assert failures.first is first and failures.last is second
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage().split(": ", 1)[1] for r in warned] == ["RuntimeError: agent crashed", out.error]
    assert any("after RuntimeError: agent crashed" in r.getMessage() for r in caplog.records)
    assert "VerifierError" in (record.dir / "error.txt").read_text()


def test_a_rebuilt_error_stops_the_request_only_when_its_class_does(tmp_path):
    out = new_outcome("t", 1, 1, AttemptRecord(tmp_path, 1), False)
    out.error_type, out.error = "ModelEndpointDownError", "ModelEndpointDownError: dead"
    stopped = stopping_error(out)
    assert isinstance(stopped, ModelEndpointDownError) and str(stopped) == "dead"
    out.error_type, out.error = "VerifierError", "VerifierError: x"
    assert stopping_error(out) is None


class _Part:
    def __init__(self, fatal=None, limit_hit=None):
        self.fatal, self.limit_hit, self.closed = fatal, limit_hit, 0

    def close(self):
        self.closed += 1


class _Service:
    def __init__(self, name, part):
        self.name, self.part, self.asked = name, part, []

    def attempt(self, ctx, model, label, config):
        self.asked.append((ctx, model, label, config))
        if part := self.part:
            ctx.attached = [*getattr(ctx, "attached", []), self.name]
        return part


def test_every_service_with_a_part_takes_part_in_the_attempt_by_the_same_hook():
    dead = ModelEndpointDownError("dead")
    first, second = _Part(limit_hit="max_model_calls"), _Part(fatal=dead, limit_hit="other")
    plain = SimpleNamespace(name="budget")  # no per-attempt part
    services = {
        "a": _Service("a", first),
        "b": plain,
        "c": _Service("c", None),
        "d": _Service("d", second),
    }
    ctx = SimpleNamespace()
    parts = AttemptServices.of(services, ctx, "model", "t/attempt-1", "config")
    assert parts.parts == (first, second) and ctx.attached == ["a", "d"]
    assert services["c"].asked == [(ctx, "model", "t/attempt-1", "config")]
    assert parts.fatal is dead and parts.limit_hit == "max_model_calls"
    parts.close()
    assert (first.closed, second.closed) == (1, 1)
    empty = AttemptServices.of({}, ctx, None, "t", None)
    assert empty.fatal is None and empty.limit_hit is None
