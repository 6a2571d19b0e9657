"""A Terminal-Bench verifier's outcome as a :class:`~agentcompass.interfaces.Grade`, the grade of an attempt whose
verifier was refused (replaced programs), and the task-input upload of ``workdir_files``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcompass.benchmarks.terminal_bench.shapes import StartupHook
from agentcompass.benchmarks.terminal_bench.verifier import VerifierOutcome
from agentcompass.interfaces import Grade


def refused(replaced: list[str], hooks: list[StartupHook]) -> VerifierOutcome:
    """No verifier run: programs the tests would run were replaced (``isolate_verifier_startup``)."""
    out = VerifierOutcome(
        error=f"VerifierError: programs the verifier runs were replaced before grading: {', '.join(replaced[:5])}"
    )
    out.startup_hooks = hooks
    return out


def env_key(env: Any) -> str:
    return str(env.id or id(env))


def grade_of(out: VerifierOutcome, extra: dict[str, object]) -> Grade:
    details: dict[str, object] = {**out.details(), **extra}
    if out.error is not None:
        return Grade(reward=None, rewards=out.rewards, resolved=False, error=out.error, log=out.log, details=details)
    return Grade(
        reward=out.reward,
        rewards=out.rewards,
        resolved=bool(out.reward is not None and out.reward >= 1),
        log=out.log,
        details=details,
    )


async def upload_clean(env: Any, src: Path, dst: str) -> None:
    """Upload a task's input files without Python byte-code caches (an installed package compiles its .py files)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="agentcompass-files-") as tmp:
        staged = Path(tmp) / "files"
        shutil.copytree(src, staged, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), symlinks=True)
        await env.upload(staged, dst)
