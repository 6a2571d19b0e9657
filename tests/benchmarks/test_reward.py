"""Terminal-Bench reward files: reward.json wins over reward.txt; anything invalid is a VerifierError."""

from __future__ import annotations

import math

import pytest

from agentcompass.benchmarks.terminal_bench.reward import (
    parse_reward_json,
    parse_reward_txt,
    parse_rewards,
    primary_reward,
    read_rewards,
    read_rewards_dir,
)
from agentcompass.errors import VerifierError
from agentcompass.interfaces import EnvSpec
from tests.benchmarks.tb_fixtures import local_provider, run  # noqa: F401  (fixture)


def test_json_wins_over_txt(tmp_path):
    (tmp_path / "reward.txt").write_text("0\n")
    (tmp_path / "reward.json").write_text('{"reward": 0.5, "style": 1}')
    assert read_rewards_dir(tmp_path) == {"reward": 0.5, "style": 1.0}


def test_invalid_json_is_not_rescued_by_txt(tmp_path):
    (tmp_path / "reward.txt").write_text("1")
    (tmp_path / "reward.json").write_text("{not json")
    with pytest.raises(VerifierError, match="reward.json is not valid JSON"):
        read_rewards_dir(tmp_path)


def test_txt_alone_with_whitespace(tmp_path):
    (tmp_path / "reward.txt").write_text("  \n0.75 \n\n")
    assert read_rewards_dir(tmp_path) == {"reward": 0.75}


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"reward": 1, "a": 0, "b": 0.25}', {"reward": 1.0, "a": 0.0, "b": 0.25}),
        ("0.5", {"reward": 0.5}),
        ("1", {"reward": 1.0}),
        ('{"accuracy": 0.8}', {"accuracy": 0.8}),
    ],
)
def test_json_flat_dict_or_single_number(text, expected):
    assert parse_reward_json(text.encode()) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("{}", "empty object"),
        ('{"reward": "high"}', "not a number"),
        ('{"reward": {"nested": 1}}', "not a number"),
        ('{"reward": true}', "not a number"),
        ('{"reward": NaN}', "not a finite number"),
        ('{"reward": Infinity}', "not a finite number"),
        ("NaN", "not a finite number"),
        ("[1, 2]", "not a number"),
        ('"1"', "not a number"),
        ("null", "not a number"),
    ],
)
def test_json_invalid(text, message):
    with pytest.raises(VerifierError, match=message):
        parse_reward_json(text.encode())


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("\n\t ", "empty"),
        ("pass", "not a number"),
        ("1 0", "not a number"),
        ("nan", "not a finite number"),
        ("inf", "not a finite number"),
        ("-Infinity", "not a finite number"),
    ],
)
def test_txt_invalid(text, message):
    with pytest.raises(VerifierError, match=message):
        parse_reward_txt(text.encode())


def test_missing_both_files(tmp_path):
    with pytest.raises(VerifierError, match="no reward file"):
        read_rewards_dir(tmp_path)
    with pytest.raises(VerifierError, match="neither"):
        parse_rewards(None, None)


def test_undecodable_bytes_are_a_verifier_error():
    with pytest.raises(VerifierError):
        parse_reward_txt(b"\xff\xfe")


def test_primary_reward():
    assert primary_reward({"reward": 0.25, "a": 1.0}) == 0.25
    assert primary_reward({"accuracy": 0.8}) == 0.8
    assert math.isclose(primary_reward({"a": 1.0, "b": 0.0, "c": 0.5}), 0.5)


def test_read_rewards_from_an_environment(local_provider):  # noqa: F811
    async def body():
        env = await local_provider.open(EnvSpec(task_id="reward"))
        try:
            with pytest.raises(VerifierError, match="no reward file"):
                await read_rewards(env)
            await env.write_file("/logs/verifier/reward.txt", "1\n")
            assert await read_rewards(env) == ({"reward": 1.0}, "reward.txt")
            await env.write_file("/logs/verifier/reward.json", '{"reward": 0.5, "x": 2}')
            assert await read_rewards(env) == ({"reward": 0.5, "x": 2.0}, "reward.json")
            await env.write_file("/logs/verifier/reward.json", "")
            with pytest.raises(VerifierError, match="reward.json is empty"):
                await read_rewards(env)
        finally:
            await env.close()

    run(body())


@pytest.mark.parametrize("name", ["reward.txt", "reward.json"])
def test_a_reward_file_of_megabytes_is_a_clear_verifier_error(local_provider, tmp_path, name):  # noqa: F811
    """test.sh writes 3 MB into the reward file: the verifier names the file and its size (it used to fail with
    'Incorrect padding' from a base64 text cut by the output cap)."""
    from agentcompass.benchmarks.terminal_bench.verifier import run_verifier

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test.sh").write_text(
        "#!/bin/bash\nhead -c 3000000 /dev/zero | tr '\\0' '1' "
        f'> "${{AGENTCOMPASS_LOGS_DIR:-/logs}}/verifier/{name}"\n'
    )

    async def body():
        env = await local_provider.open(EnvSpec(task_id="big-reward"))
        try:
            outcome = await run_verifier(env, tests, workdir="/app", timeout_s=60)
            with pytest.raises(VerifierError, match=rf"{name} is 3,000,000 bytes"):
                await read_rewards(env)
            return outcome
        finally:
            await env.close()

    outcome = run(body())
    assert outcome.reward is None
    assert f"/logs/verifier/{name} is 3,000,000 bytes" in outcome.error and "at most 65,536" in outcome.error
    assert "padding" not in outcome.error.lower()
