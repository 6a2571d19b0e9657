"""Run a Terminal-Bench 2 verifier inside an environment (FORMATS.md C4).

1. upload the task's ``tests/`` to a fresh random path (only now, after the agent); then, in one command:
   delete stale ``/logs/verifier/reward.{txt,json}`` and any ``/tests`` left by the agent, move the upload to
   ``/tests``;
2. in the same command, ``chmod +x /tests/test.sh`` and run it (directly when it has a shebang, else with
   ``bash``) from the workdir, output to ``/logs/verifier/test-stdout.txt``, with the task's ``[verifier].env``,
   under the verifier timeout, then print its exit code, the reward files and the log tail;
3. read the reward (:mod:`.reward`). test.sh's exit code is ignored; a timeout makes the reward invalid.

Paths go through ``env.path`` so the same code drives the local environment and containers.
"""

from __future__ import annotations

import posixpath
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.benchmarks.terminal_bench.reward import (
    MAX_REWARD_BYTES,
    REWARD_JSON,
    REWARD_TXT,
    parse_rewards,
    primary_reward,
    read_rewards,
    too_large,
)
from agentcompass.errors import SandboxError, VerifierError

TESTS_PATH = "/tests"
VERIFIER_LOGS = "/logs/verifier"
LOG_TAIL_BYTES = 64 * 1024


@dataclass
class VerifierOutcome:
    """What one verifier run produced; ``reward is None`` when there is no valid reward (see ``error``)."""

    reward: float | None = None
    rewards: dict[str, float] = field(default_factory=dict)
    source: str = ""  # reward.json | reward.txt
    error: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    log: str = ""

    def details(self) -> dict[str, Any]:
        return {
            "reward_file": self.source,
            "test_exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "verifier_duration_s": round(self.duration_s, 3),
        }


def _q(env: Any, path: str) -> str:
    return shlex.quote(env.path(path))


async def _stage(env: Any, tests_dir: Path) -> str:
    """Upload ``tests/`` to a fresh, unguessable path; the run command moves it to ``/tests`` (so files an agent
    planted under ``/tests`` are gone, and clearing + running cost one round trip)."""
    import secrets

    staging = f"/tmp/.agentcompass-tests-{secrets.token_hex(8)}"
    await env.upload(tests_dir, staging)
    return staging


_MARK = "@@agentcompass-verifier@@"


def _run_command(env: Any, tests_dir: Path, tests_path: str, logs_dir: str, staging: str) -> str:
    """Clear stale rewards, move the staged tests to ``tests_path``, run test.sh, then report (in the same round
    trip) its exit code, the reward files (base64) and the tail of its output, each behind a marker line."""
    logs, tests = _q(env, logs_dir), _q(env, tests_path)
    prepare = (
        f"rm -f {logs}/reward.txt {logs}/reward.json && rm -rf {tests} && mkdir -p {logs} "
        f"{_q(env, posixpath.dirname(tests_path) or '/')} && mv {_q(env, staging)} {tests} "
        f'|| {{ echo "{_MARK} prepare-failed"; exit 0; }}; '
    )
    script = _q(env, f"{tests_path}/test.sh")
    out = _q(env, f"{logs_dir}/test-stdout.txt")
    try:
        has_shebang = (tests_dir / "test.sh").read_bytes()[:2] == b"#!"
    except OSError:
        has_shebang = False
    runner = script if has_shebang else f"bash {script}"
    return (
        prepare + f'chmod +x {script} && {runner} > {out} 2>&1; echo; echo "{_MARK} rc $?"; '
        f"cd {_q(env, logs_dir)} 2>/dev/null || exit 0; "
        f"if command -v base64 >/dev/null 2>&1; then for f in reward.json reward.txt; do "
        f'[ -f "$f" ] || continue; n=$(wc -c < "$f"); if [ "$n" -gt {MAX_REWARD_BYTES} ]; then '
        f'echo "{_MARK} large $f $n"; continue; fi; '
        f"printf '{_MARK} file %s ' \"$f\" && base64 \"$f\" | tr -d '\\n' && echo; done; "
        f'else echo "{_MARK} nobase64"; fi; echo "{_MARK} tail"; '
        f"tail -c {LOG_TAIL_BYTES} test-stdout.txt 2>/dev/null; exit 0"
    )


def _parse_report(stdout: str) -> tuple[int | None, dict[str, bytes], str | None, bool]:
    """(test.sh exit code, reward files' bytes, log tail, base64 available) from the run command's output."""
    import base64

    if f"{_MARK} prepare-failed" in stdout:
        raise SandboxError(f"verifier: cannot clear the logs or move the tests into place: {stdout.strip()[-300:]}")
    head, sep, tail = stdout.partition(f"{_MARK} tail\n")
    rc, files, has_b64 = None, {}, True
    for line in head.splitlines():
        if line.startswith(f"{_MARK} rc "):
            rc = int(line.split()[-1]) if line.split()[-1].lstrip("-").isdigit() else None
        elif line.startswith(f"{_MARK} file "):
            _, _, name, *data = line.split(" ", 3)
            files[name] = base64.b64decode(data[0] if data else "")
        elif line.startswith(f"{_MARK} large "):
            _, _, name, size = line.split(" ", 3)
            files[name] = _TooLarge(int(size) if size.isdigit() else -1)
        elif line == f"{_MARK} nobase64":
            has_b64 = False
    return rc, files, (tail if sep else None), has_b64


class _TooLarge(bytes):
    """A reward file the run command did not send because of its size (``size`` bytes)."""

    def __new__(cls, size: int) -> _TooLarge:
        obj = super().__new__(cls, b"")
        obj.size = size
        return obj


def _refuse_large(files: dict[str, bytes], logs_dir: str) -> None:
    """The file that decides the reward (reward.json if present) must not have been too large to read."""
    name = REWARD_JSON if REWARD_JSON in files else REWARD_TXT
    data = files.get(name)
    if isinstance(data, _TooLarge):
        raise too_large(f"{logs_dir.rstrip('/')}/{name}", data.size)


async def _log_tail(env: Any, logs_dir: str) -> str:
    res = await env.exec(f"tail -c {LOG_TAIL_BYTES} {_q(env, logs_dir + '/test-stdout.txt')} 2>/dev/null", timeout=60)
    return res.stdout


async def run_verifier(
    env: Any,
    tests_dir: Path,
    *,
    workdir: str,
    timeout_s: float,
    env_vars: dict[str, str] | None = None,
    tests_path: str = TESTS_PATH,
    logs_dir: str = VERIFIER_LOGS,
) -> VerifierOutcome:
    """Run the verifier; verifier failures land in ``outcome.error``, environment failures raise."""
    tests_dir = Path(tests_dir)
    if not (tests_dir / "test.sh").is_file():
        return VerifierOutcome(error=f"verifier script {tests_dir / 'test.sh'} does not exist")
    staging = await _stage(env, tests_dir)
    start = time.monotonic()
    res = await env.exec(
        _run_command(env, tests_dir, tests_path, logs_dir, staging),
        timeout=timeout_s,
        cwd=workdir,
        env=dict(env_vars or {}),
    )
    rc, files, tail, has_b64 = _parse_report(res.stdout)
    outcome = VerifierOutcome(
        exit_code=None if res.timed_out else rc, timed_out=res.timed_out, duration_s=time.monotonic() - start
    )
    outcome.log = tail if tail is not None else await _log_tail(env, logs_dir)
    if res.timed_out:
        outcome.error = f"VerifierError: verifier timed out after {timeout_s:g}s"
        return outcome
    try:
        if tail is not None and has_b64:
            _refuse_large(files, logs_dir)
            outcome.rewards = parse_rewards(files.get(REWARD_JSON), files.get(REWARD_TXT), logs_dir)
            outcome.source = REWARD_JSON if REWARD_JSON in files else REWARD_TXT
        else:  # an image without base64: ask for the files one by one
            outcome.rewards, outcome.source = await read_rewards(env, logs_dir)
        outcome.reward = primary_reward(outcome.rewards)
    except VerifierError as exc:
        outcome.error = f"VerifierError: {exc}"
    return outcome
