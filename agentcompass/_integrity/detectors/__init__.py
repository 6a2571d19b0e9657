"""The detectors, one small module each: ``detect(events, facts) -> flags``."""

from __future__ import annotations

from collections.abc import Callable

from ..events import Event
from ..flags import Facts, Flag
from . import grading_record, hijacking, interference, peeking, reward_files, test_collection

Detector = Callable[[list[Event], Facts], list[Flag]]

DETECTORS: dict[str, Detector] = {
    "reward_files": reward_files.detect,
    "test_tampering": test_collection.detect,
    "peeking": peeking.detect,
    "hijacking": hijacking.detect,
    "interference": interference.detect,
    "grading_record": grading_record.detect,
}
