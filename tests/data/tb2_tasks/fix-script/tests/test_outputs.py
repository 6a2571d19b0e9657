import os
import subprocess


def run(*args):
    return subprocess.run(
        ["python3", "/app/total.py", *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_small_sum():
    assert run("1", "2", "3") == "6"


def test_expected_total_from_the_verifier_env():
    assert run("1", "2", "3", "4", "5") == os.environ["EXPECTED_TOTAL"]


def test_no_arguments():
    assert run() == "0"
