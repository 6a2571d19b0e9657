"""The one place that says what an attempt failed with (:func:`classify_failure`), and the failure an attempt
records (:class:`FailureRecord`). Every path of an attempt, in this process or on a Ray worker and its driver,
types its errors here:

- a full disk or quota anywhere (``ENOSPC``, ``EDQUOT``) is a :class:`~agentcompass.errors.StorageError`, which
  stops the request;
- an error in an environment whose processes the kernel killed for memory is an
  :class:`~agentcompass.errors.OutOfMemoryError` naming the phase (caused by the error it led to), and so is a
  grade below full there (:func:`grade_failure`);
- a cancellation, or an error already typed, stays what it is.
"""

from __future__ import annotations

import logging
from typing import Any

from agentcompass import errors
from agentcompass.errors import AgentCompassError, VerifierError, one_line, storage_error
from agentcompass.interfaces import Grade

from ..record import AttemptOutcome, AttemptRecord, record_failure
from . import resources

__all__ = ["FailureRecord", "classify_failure", "grade_failure", "stopping_error", "stops_request"]


def classify_failure(exc: BaseException, env: Any = None, phase: str | None = None) -> BaseException:
    """What ``exc`` (raised in ``phase`` of an attempt whose current environment is ``env``; an error raised on
    another process: the error it carried, which its executor unwraps) is recorded as."""
    exc = storage_error(exc) or exc
    return resources.typed(exc, env, phase)


def grade_failure(grade: Grade, env: Any) -> BaseException | None:
    """The failure a grade is (none for a full or valid partial reward): no valid reward is a VerifierError; a
    reward below full where the environment ``env`` killed processes for memory is an OutOfMemoryError."""
    if grade.reward is None:
        return VerifierError((grade.error or "the verifier produced no valid reward").removeprefix("VerifierError: "))
    if grade.reward < 1:  # a task that ran out of memory fails for that reason, whatever it scored
        return resources.oom_error(env, None, f"the reward is {grade.reward:g}")
    return None


def stops_request(exc: BaseException) -> bool:
    return isinstance(exc, AgentCompassError) and bool(exc.stops_request)


def stopping_error(out: AttemptOutcome) -> BaseException | None:
    """The error recorded in ``out`` (by another process), rebuilt from its type name, when it stops the
    request."""
    cls = vars(errors).get(out.error_type or "")
    if not (isinstance(cls, type) and issubclass(cls, AgentCompassError) and cls.stops_request):
        return None
    prefix = f"{out.error_type}: "
    text = out.error or ""
    return cls(text[len(prefix) :] if text.startswith(prefix) else text)


class FailureRecord:
    """The failure recorded in one attempt's outcome ``out`` (``first``: the first one recorded). A later failure
    (verification failing after an agent-phase error that was verified anyway, a cancel) is what ``result.json``
    says, as the attempt's end; its log line names the failure it follows, which stays in the log."""

    __slots__ = ("first", "last", "logger", "out", "record")

    def __init__(self, out: AttemptOutcome, record: AttemptRecord, logger: logging.Logger) -> None:
        self.out, self.record, self.logger = out, record, logger
        self.first: BaseException | None = None
        self.last: BaseException | None = None

    def add(self, exc: BaseException) -> None:
        """Record ``exc`` (classified by :func:`classify_failure`)."""
        if exc is self.last:
            return  # one failure is recorded (and logged) once
        if self.last is not None:
            self.logger.debug("%s attempt %d: after %s", self.out.task_id, self.out.attempt, one_line(self.last))
        self.first = self.first or exc
        self.last = exc
        record_failure(self.out, exc, self.record, self.logger)
