"""Grading holes of the Terminal-Bench verifier an agent could use, each closed: rewards read through binaries the
agent can replace, a reward file the task's tests never write, reward files and /tests left by the agent."""

from __future__ import annotations

import os
from pathlib import Path

from agentcompass.benchmarks.terminal_bench.verifier import run_verifier
from agentcompass.interfaces import EnvSpec
from tests.benchmarks.tb_fixtures import local_provider, run  # noqa: F401  (fixture)

LOGS = '"${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"'
WORKDIR = '"${AGENTCOMPASS_WORKDIR:-/app}"'


def _tests(tmp_path: Path, body: str) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    (tests / "test.sh").write_text(f"#!/bin/bash\n{body}\n")
    return tests


def _verify(local_provider, tests: Path, before=None, env_vars=None):  # noqa: F811
    async def body():
        env = await local_provider.open(EnvSpec(task_id="holes"))
        try:
            await env.exec(f"mkdir -p {env.path('/logs/verifier')} {env.path('/app')}", timeout=30)
            if before is not None:
                await before(env)
            return await run_verifier(env, tests, workdir="/app", timeout_s=60, env_vars=env_vars)
        finally:
            await env.close()

    return run(body())


def _fake_bin(tmp_path: Path) -> Path:
    """Binaries an agent could plant in the environment: ``base64`` that always reports a reward of 1, ``tail``
    that prints a passing log, ``wc`` that says every file is small."""
    fake = tmp_path / "fakebin"
    fake.mkdir()
    scripts = {
        "base64": "#!/bin/sh\nprintf MQo=\n",
        "tail": "#!/bin/sh\necho 'PASS: everything'\n",
        "wc": "#!/bin/sh\necho 2\n",
    }
    for name, text in scripts.items():
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    return fake


def test_rewards_are_read_with_the_environment_file_api_not_its_binaries(tmp_path, local_provider):  # noqa: F811
    tests = _tests(tmp_path, f"echo FAIL: wrong answer; echo 0 > {LOGS}/reward.txt")
    fake = _fake_bin(tmp_path)
    outcome = _verify(local_provider, tests, env_vars={"PATH": f"{fake}:{os.environ['PATH']}"})
    assert (outcome.reward, outcome.source, outcome.error) == (0.0, "reward.txt", None)
    assert "FAIL: wrong answer" in outcome.log and "PASS: everything" not in outcome.log


def test_a_reward_file_the_tests_never_name_does_not_count_and_is_recorded(tmp_path, local_provider):  # noqa: F811
    """The program under test writes reward.json while test.sh writes reward.txt: reward.json used to win."""
    tests = _tests(tmp_path, f"bash {WORKDIR}/run.sh; echo 0 > {LOGS}/reward.txt")
    planted = f"#!/bin/bash\necho '{{\"reward\": 1}}' > {LOGS}/reward.json\n"

    async def plant(env):
        await env.write_file("/app/run.sh", planted)

    outcome = _verify(local_provider, tests, before=plant)
    assert (outcome.reward, outcome.source) == (0.0, "reward.txt")
    details = outcome.details()
    assert details["reward_files_unexpected"] == ["reward.json"]
    assert details["reward_files_present"] == ["reward.json", "reward.txt"]


def test_reward_files_the_agent_left_are_recorded_and_cleared(tmp_path, local_provider):  # noqa: F811
    tests = _tests(tmp_path, "echo 'no reward written'")

    async def leave(env):
        await env.write_file("/logs/verifier/reward.txt", "1\n")

    outcome = _verify(local_provider, tests, before=leave)
    assert outcome.reward is None and "no reward file" in outcome.error
    assert outcome.details()["reward_files_left_by_agent"] == {"reward.txt": "1"}


def test_a_replaced_rm_cannot_keep_the_agents_reward_or_tests(tmp_path, local_provider):  # noqa: F811
    """``rm`` replaced by a no-op: the agent's reward.txt and its own /tests/test.sh would have stayed."""
    tests = _tests(tmp_path, f"echo 0 > {LOGS}/reward.txt")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "rm").write_text("#!/bin/sh\nexit 0\n")
    (fake / "rm").chmod(0o755)

    async def leave(env):
        await env.write_file("/logs/verifier/reward.txt", "1\n")
        await env.write_file("/tests/test.sh", f"#!/bin/bash\necho 1 > {LOGS}/reward.txt\n", mode=0o755)

    outcome = _verify(local_provider, tests, before=leave, env_vars={"PATH": f"{fake}:{os.environ['PATH']}"})
    assert outcome.reward is None and "still there" in outcome.error
    assert outcome.details()["reward_files_left_by_agent"] == {"reward.txt": "1"}


def test_the_reward_files_a_tests_directory_names(tmp_path):
    from agentcompass.benchmarks.terminal_bench.verifier import expected_reward_files

    tests = _tests(tmp_path, f"python3 /tests/check.py; echo 1 > {LOGS}/reward.txt")
    assert expected_reward_files(tests) == {"reward.txt"}
    (tests / "check.py").write_text("open('/logs/verifier/reward.json', 'w').write('{}')\n")
    assert expected_reward_files(tests) == {"reward.txt", "reward.json"}
    assert expected_reward_files(_tests(tmp_path / "x", "exit 0")) == set()


def test_everything_the_agent_left_in_the_logs_is_recorded_and_deleted(tmp_path, local_provider):  # noqa: F811
    tests = _tests(tmp_path, f"ls -A {LOGS} > {WORKDIR}/seen; echo 0 > {LOGS}/reward.txt")

    async def plant(env):
        await env.exec(f"echo planted > {LOGS}/notes.txt; mkdir -p {LOGS}/.hidden; echo 1 > {LOGS}/reward.txt")

    outcome = _verify(local_provider, tests, before=plant)
    assert outcome.reward == 0.0
    assert outcome.left_by_agent == {"reward.txt": "1"}
    assert outcome.logs_left_by_agent == {"notes.txt": "planted", ".hidden": ""}
    assert outcome.details()["verifier_logs_left_by_agent"] == {"notes.txt": "planted", ".hidden": ""}


def test_with_empty_logs_off_only_reward_files_are_deleted(tmp_path, local_provider):  # noqa: F811
    tests = _tests(tmp_path, f"cat {LOGS}/notes.txt; echo 0 > {LOGS}/reward.txt")

    async def plant(env):
        await env.exec(f"echo planted > {LOGS}/notes.txt")

    async def body():
        env = await local_provider.open(EnvSpec(task_id="holes"))
        try:
            await env.exec(f"mkdir -p {env.path('/logs/verifier')} {env.path('/app')}", timeout=30)
            await plant(env)
            return await run_verifier(env, tests, workdir="/app", timeout_s=60, empty_logs=False)
        finally:
            await env.close()

    outcome = run(body())
    assert outcome.logs_left_by_agent == {} and "planted" in outcome.log
