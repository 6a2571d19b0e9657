"""``end_processes`` (interfaces.END_PROCESSES, execution.end_agent_processes): every process a command left
running ends before verification, however it left the command (checked from /proc by pid and start time), and a
background loop writing a reward file writes no more; the environment keeps working afterwards."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.environments.conftest import run
from tests.environments.process_patterns import N_EXPECTED, pattern_script, recorded, survivors, wait_recorded

WRITER = "nohup bash -c 'while :; do echo 1 > {logs}/reward.txt; sleep 0.05; done' >/dev/null 2>&1 &"


def _settle(seen: dict[int, int | None], seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := survivors(seen)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_local_end_processes_ends_every_pattern_and_the_environment_goes_on(make_provider, spec, tmp_path):
    pids = tmp_path / "pids"

    async def body():
        env = await make_provider(background_grace_s=0.1).open(spec)
        try:
            r = await env.exec(pattern_script(pids, tmp_path), timeout=120)
            assert r.exit_code == 0, r.stderr
            seen = wait_recorded(pids)
            ended = await env.end_processes()
            seen.update(recorded(pids))
            assert len(ended) >= 50  # the command lines (at most 50 are named)
            assert _settle(seen) == []
            again = await env.exec("echo still here", timeout=30)
            assert again.exit_code == 0 and again.stdout.strip() == "still here"
            assert await env.end_processes() == []  # nothing left to end
            return seen
        finally:
            await env.close()

    seen = run(body())
    assert len(seen) >= N_EXPECTED


def test_local_background_reward_writer_writes_no_more(make_provider, spec):
    async def body():
        env = await make_provider(background_grace_s=0.1).open(spec)
        try:
            logs = env.path("/logs/verifier")
            r = await env.exec(WRITER.format(logs=logs), timeout=30)
            assert r.exit_code == 0
            reward = Path(logs) / "reward.txt"
            deadline = time.monotonic() + 10
            while not reward.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert reward.exists()
            ended = await env.end_processes()
            assert any("reward.txt" in line for line in ended), ended
            reward.unlink()
            time.sleep(0.5)
            assert not reward.exists()
        finally:
            await env.close()

    run(body())


@pytest.mark.docker
def test_docker_end_processes_restarts_only_when_the_agent_left_one(docker_engine):
    from agentcompass.environments.docker import DockerConfig, DockerProvider
    from agentcompass.interfaces import EnvSpec
    from tests.environments.docker_support import BASE_IMAGE, TEST_LABELS

    async def body():
        provider = DockerProvider(DockerConfig(), None)
        env = await provider.open(EnvSpec(task_id="end-processes", image=BASE_IMAGE, labels=dict(TEST_LABELS)))
        try:
            await env.exec("mkdir -p /logs/verifier /app", timeout=30)
            assert await env.end_processes() == []  # only its keepers: nothing ended, no restart
            r = await env.exec(
                WRITER.format(logs="/logs/verifier") + " setsid sleep 999 & (sleep 998 &) ; echo ok", timeout=30
            )
            assert r.exit_code == 0
            ended = await env.end_processes()
            assert any("reward.txt" in line for line in ended) and any("sleep 999" in x for x in ended), ended
            await env.exec("rm -f /logs/verifier/reward.txt; sleep 0.5", timeout=30)
            with pytest.raises(FileNotFoundError):
                await env.read_file("/logs/verifier/reward.txt")
            assert await env.end_processes() == []
        finally:
            await env.close()
            await provider.aclose()

    run(body())


def test_docker_keepers_are_the_init_and_the_tree_of_its_first_child():
    from agentcompass.environments.docker.processes import others

    titles = ["UID", "PID", "PPID", "C", "STIME", "TTY", "TIME", "CMD"]

    def row(pid: int, ppid: int, cmd: str) -> list[str]:
        return ["root", str(pid), str(ppid), "0", "20:05", "?", "00:00:00", cmd]

    top = {
        "Titles": titles,
        "Processes": [
            row(100, 90, "/sbin/docker-init -- sh -c exec sleep infinity"),
            row(120, 100, "sleep infinity"),
            row(130, 120, "a child of the keeper (a compose service's own)"),
            row(150, 100, "bash -c while :; do echo 1 > /logs/verifier/reward.txt; done"),
            row(151, 150, "sleep 0.05"),
            row(160, 95, "tmux: server (an exec still running)"),
        ],
    }
    assert others(top) == [
        "bash -c while :; do echo 1 > /logs/verifier/reward.txt; done",
        "sleep 0.05",
        "tmux: server (an exec still running)",
    ]
    assert others({"Titles": titles, "Processes": top["Processes"][:3]}) == []
