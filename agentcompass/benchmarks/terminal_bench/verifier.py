"""Run a Terminal-Bench 2 verifier inside an environment (FORMATS.md C4).

1. upload the task's ``tests/`` to a fresh random path (only now, after the agent); then, in one command:
   report any ``/logs/verifier/reward.{txt,json}`` the agent left (with shell built-ins: recorded as
   ``reward_files_left_by_agent``), delete them and any ``/tests`` left by the agent (checking they are gone), move
   the upload to ``/tests``;
2. in the same command, ``chmod +x /tests/test.sh`` and run it (directly when it has a shebang, else with
   ``bash``) from the workdir, output to ``/logs/verifier/test-stdout.txt``, with the task's ``[verifier].env``,
   under the verifier timeout, then print its exit code;
3. read the reward files and the log tail with the environment's own file API (``env.read_file``), never through
   binaries inside the environment the agent could have replaced (:mod:`.reward`). A reward file the task's
   tests never name (when they name one) is recorded in ``reward_files_unexpected`` and does not count.
   test.sh's exit code is ignored; a timeout makes the reward invalid.

Paths go through ``env.path`` so the same code drives the local environment and containers.
"""

from __future__ import annotations

import posixpath
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.benchmarks.terminal_bench.reward import REWARD_JSON, REWARD_TXT, parse_rewards, primary_reward
from agentcompass.benchmarks.terminal_bench.shapes import StartupHook, VerifierDetails
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
    present: list[str] = field(default_factory=list)  # the reward files found after test.sh ran
    unexpected: list[str] = field(default_factory=list)  # present, but the task's tests never name them
    left_by_agent: dict[str, str] = field(default_factory=dict)  # reward files there before the verifier ran
    logs_left_by_agent: dict[str, str] = field(default_factory=dict)  # anything else in the logs directory then
    startup_hooks: list[StartupHook] = field(default_factory=list)  # start-up hooks the agent added or changed

    def details(self) -> VerifierDetails:
        return {
            "reward_file": self.source,
            "test_exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "verifier_duration_s": round(self.duration_s, 3),
            "reward_files_present": list(self.present),
            "reward_files_unexpected": list(self.unexpected),
            "reward_files_left_by_agent": dict(self.left_by_agent),
            "verifier_logs_left_by_agent": dict(self.logs_left_by_agent),
            "startup_hooks_changed": list(self.startup_hooks),
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
LEFT_EXCERPT_CHARS = 100


def _run_command(
    env: Any, tests_dir: Path, tests_path: str, logs_dir: str, staging: str, empty_logs: bool = True
) -> str:
    """Report what the agent left in the logs directory (shell built-ins only: everything with ``empty_logs``, else
    the reward files), delete it and check it is gone, move the
    staged tests to ``tests_path``, run test.sh and print its exit code behind a marker line. Nothing is read back
    through the environment's binaries: the rewards and the log are read with ``env.read_file`` afterwards."""
    logs, tests = _q(env, logs_dir), _q(env, tests_path)
    if empty_logs:  # everything there: reported (names, the start of a file's first line), then deleted
        every = f"{logs}/* {logs}/.[!.]* {logs}/..?*"
        left = (
            f'for f in {every}; do [ -e "$f" ] || [ -L "$f" ] || continue; l=; '
            f'[ -f "$f" ] && IFS= read -r -n {LEFT_EXCERPT_CHARS} l < "$f"; echo "{_MARK} left ${{f##*/}} $l"; done; '
        )
        remove = f"rm -rf {every}; "
        cleared = (
            f'ac_n=0; for f in {every}; do [ -e "$f" ] || [ -L "$f" ] && ac_n=1; done; '
            f"[ $ac_n = 0 ] && [ ! -e {tests} ]"
        )
    else:
        left = (
            f"for f in {REWARD_TXT} {REWARD_JSON}; do if [ -e {logs}/$f ]; then l=; "
            f'IFS= read -r -n {LEFT_EXCERPT_CHARS} l < {logs}/$f; echo "{_MARK} left $f $l"; fi; done; '
        )
        remove = f"rm -f {logs}/{REWARD_TXT} {logs}/{REWARD_JSON}; "
        cleared = f"[ ! -e {logs}/{REWARD_TXT} ] && [ ! -e {logs}/{REWARD_JSON} ] && [ ! -e {tests} ]"
    prepare = (
        f"{remove}rm -rf {tests}; "
        f'{cleared} || {{ echo "{_MARK} not-cleared"; exit 0; }}; '
        f"mkdir -p {logs} {_q(env, posixpath.dirname(tests_path) or '/')} && mv {_q(env, staging)} {tests} "
        f'|| {{ echo "{_MARK} prepare-failed"; exit 0; }}; '
    )
    script = _q(env, f"{tests_path}/test.sh")
    out = _q(env, f"{logs_dir}/test-stdout.txt")
    try:
        has_shebang = (tests_dir / "test.sh").read_bytes()[:2] == b"#!"
    except OSError:
        has_shebang = False
    runner = script if has_shebang else f"bash {script}"
    return left + prepare + f'chmod +x {script} && {runner} > {out} 2>&1; echo; echo "{_MARK} rc $?"; exit 0'


def _parse_report(stdout: str) -> tuple[int | None, dict[str, str]]:
    """(test.sh exit code, the reward files the agent left: name -> the start of its first line)."""
    if f"{_MARK} prepare-failed" in stdout:
        raise SandboxError(f"verifier: cannot clear the logs or move the tests into place: {stdout.strip()[-300:]}")
    if f"{_MARK} not-cleared" in stdout:
        raise VerifierError(
            "the reward files or /tests were still there after the verifier deleted them (a replaced rm?)"
        )
    rc = None
    for line in stdout.splitlines():
        if line.startswith(f"{_MARK} rc "):
            rc = int(line.split()[-1]) if line.split()[-1].lstrip("-").isdigit() else None
    return rc, _parse_left(stdout)


def _parse_left(stdout: str) -> dict[str, str]:
    left = {}
    for line in stdout.splitlines():
        if line.startswith(f"{_MARK} left "):
            _, _, name, *rest = line.split(" ", 3)
            left[name] = rest[0] if rest else ""
    return left


def _split_left(outcome: VerifierOutcome, left: dict[str, str]) -> None:
    outcome.left_by_agent = {n: v for n, v in left.items() if n in (REWARD_TXT, REWARD_JSON)}
    outcome.logs_left_by_agent = {n: v for n, v in left.items() if n not in (REWARD_TXT, REWARD_JSON)}


def expected_reward_files(tests_dir: Path) -> set[str]:
    """The reward files the task's own tests name (``reward.txt`` / ``reward.json`` anywhere in ``tests/``);
    empty when they name neither (then any may be theirs)."""
    names: set[str] = set()
    for path in sorted(Path(tests_dir).rglob("*")):
        try:
            data = path.read_bytes() if path.is_file() and path.stat().st_size <= 1 << 20 else b""
        except OSError:
            continue
        names.update(n for n in (REWARD_TXT, REWARD_JSON) if n.encode() in data)
    return names


async def _read_optional(env: Any, path: str) -> bytes | None:
    try:
        return bytes(await env.read_file(path))
    except (FileNotFoundError, IsADirectoryError):
        return None


async def _log_tail(env: Any, logs_dir: str) -> str:
    data = await _read_optional(env, f"{logs_dir.rstrip('/')}/test-stdout.txt")
    return (data or b"")[-LOG_TAIL_BYTES:].decode("utf-8", errors="replace")


async def run_verifier(
    env: Any,
    tests_dir: Path,
    *,
    workdir: str,
    timeout_s: float,
    env_vars: dict[str, str] | None = None,
    tests_path: str = TESTS_PATH,
    logs_dir: str = VERIFIER_LOGS,
    empty_logs: bool = True,
) -> VerifierOutcome:
    """Run the verifier; verifier failures land in ``outcome.error``, environment failures raise. With
    ``empty_logs`` the logs directory is emptied first (what was there: ``logs_left_by_agent``), else only its
    reward files are deleted."""
    tests_dir = Path(tests_dir)
    if not (tests_dir / "test.sh").is_file():
        return VerifierOutcome(error=f"verifier script {tests_dir / 'test.sh'} does not exist")
    staging = await _stage(env, tests_dir)
    start = time.monotonic()
    res = await env.exec(
        _run_command(env, tests_dir, tests_path, logs_dir, staging, empty_logs),
        timeout=timeout_s,
        cwd=workdir,
        env=dict(env_vars or {}),
    )
    try:
        rc, left = _parse_report(res.stdout)
    except VerifierError as exc:
        outcome = VerifierOutcome(error=f"VerifierError: {exc}")
        _split_left(outcome, _parse_left(res.stdout))
        return outcome
    outcome = VerifierOutcome(
        exit_code=None if res.timed_out else rc, timed_out=res.timed_out, duration_s=time.monotonic() - start
    )
    _split_left(outcome, left)
    outcome.log = await _log_tail(env, logs_dir)
    if res.timed_out:
        outcome.error = f"VerifierError: verifier timed out after {timeout_s:g}s"
        return outcome
    await _read_rewards(env, outcome, logs_dir, expected_reward_files(tests_dir))
    return outcome


async def _read_rewards(env: Any, outcome: VerifierOutcome, logs_dir: str, expected: set[str]) -> None:
    """Read both reward files with the environment's own file API. A file the task's tests never name (when they
    name one) is not theirs: it is recorded in ``unexpected`` and takes no part in the reward."""
    base = logs_dir.rstrip("/")
    files = {n: await _read_optional(env, f"{base}/{n}") for n in (REWARD_JSON, REWARD_TXT)}
    outcome.present = [n for n, data in files.items() if data is not None]
    outcome.unexpected = [n for n in outcome.present if expected and n not in expected]
    counted = {n: (None if n in outcome.unexpected else data) for n, data in files.items()}
    try:
        outcome.rewards = parse_rewards(counted[REWARD_JSON], counted[REWARD_TXT], logs_dir)
        outcome.source = REWARD_JSON if counted[REWARD_JSON] is not None else REWARD_TXT
        outcome.reward = primary_reward(outcome.rewards)
    except VerifierError as exc:
        outcome.error = f"VerifierError: {exc}"
