"""A command that floods the terminal: the tmux server and the pane log terminus2 keeps stay bounded."""

from __future__ import annotations

import asyncio
import shutil

import pytest
from t2_support import harbor_prompts

from agentcompass.harnesses.terminus2.tmux import PANE_LOG, TmuxSession

FLOOD_BYTES = 60_000_000
LINE = "x" * 300


def flood_command(n: int) -> str:
    return f"yes {LINE} | head -c {n}; echo FLOOD-$((40+2))"


async def _pane_text(session: TmuxSession, target: str) -> str:
    return (await session._run(session._tmux("capture-pane", "-p", "-t", target))).stdout


async def _wait_for(predicate, timeout: float, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.25)


def _rss_kb(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def flood(env, **bounds) -> dict:
    """Flood the agent's pane and a pane made after the history option (as every pane is where tmux applies the
    option to existing panes); measure the server's RSS, the history kept and the pane log."""
    session = TmuxSession(env, harbor_prompts(), "t2flood", workdir="/app", record=False, **bounds)
    await session.start()
    try:
        await session.wait_ready()
        await session._run(session._tmux("new-window", "-d", "-t", "t2flood"))
        for target in ("t2flood:0", "t2flood:1"):
            await session._run(session._tmux("send-keys", "-t", target, "--", flood_command(FLOOD_BYTES), "Enter"))
        for target in ("t2flood:0", "t2flood:1"):

            async def done(target=target):
                return "FLOOD-42" in await _pane_text(session, target)

            await _wait_for(done, 240, f"the flood in {target} to end")
        info = (
            await session._run(
                session._tmux("display", "-p", "-t", "t2flood:1", "#{pid} #{history_limit} #{history_size}")
            )
        ).stdout.split()
        pid, limit, size = map(int, info)
        rss_kb = _rss_kb(pid)
        observation = await session.incremental_output()
        await session.close_log()

        async def log_complete():
            data = await env.read_file(PANE_LOG)
            return data.rstrip().endswith(b"$") or b"FLOOD-42" in data[-4000:]

        await _wait_for(log_complete, 30, "the pane log's tail")
        log = await env.read_file(PANE_LOG)
    finally:
        await session.stop()
    return {
        "rss_kb": rss_kb,
        "history_limit": limit,
        "history_size": size,
        "log": log,
        "observation_bytes": len(observation.encode()),
    }


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")
def test_a_flooding_command_leaves_tmux_and_its_pane_log_bounded(in_local_env, capsys):
    m = in_local_env(flood, timeout=400)
    log = m["log"]
    with capsys.disabled():
        print(
            f"\nflood of {FLOOD_BYTES:,} bytes in each of 2 panes: tmux RSS {m['rss_kb'] / 1024:.1f} MiB, history "
            f"{m['history_size']}/{m['history_limit']} lines, pane log kept {len(log):,} bytes, observation "
            f"{m['observation_bytes']:,} bytes"
        )
    assert m["history_limit"] == 10_000 and m["history_size"] <= 10_000
    assert m["rss_kb"] < 100 * 1024  # Harbor's 10,000,000-line limit: gigabytes
    assert len(log) <= 2_000_000 + 200  # the first and last 1,000,000 bytes and the note
    assert b"[pane log: the middle was cut; only the first and the last 1000000 bytes are kept]" in log
    head, _, tail = log.partition(b"[pane log: the middle was cut")
    assert LINE.encode() in head[:20_000] and b"FLOOD-42" in tail[-4000:]
