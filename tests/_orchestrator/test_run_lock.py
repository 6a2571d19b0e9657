"""The run lock: a live holder refuses, a stale one (dead pid, reused pid, another boot or host) is taken over.

The CLI case (a second ``--reuse`` of a live run) is in test_run_record.py; this covers the lock's own rules,
including file systems without ``flock``, where the lock file's content decides."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import pytest

from agentcompass._orchestrator.record import runlock
from agentcompass.errors import ConfigError, RunInUseError


@pytest.fixture
def sleeper():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc
    proc.kill()
    proc.wait()


def _info_of(pid: int, **changes) -> dict:
    info = {**runlock.holder_info(), "pid": pid, "start_ticks": runlock._start_ticks(pid)}
    return {**info, **changes}


def test_holder_alive_tells_live_from_stale(sleeper):
    assert runlock.holder_alive(_info_of(sleeper.pid))
    assert not runlock.holder_alive(_info_of(sleeper.pid, boot_id="another-boot"))
    assert not runlock.holder_alive(_info_of(sleeper.pid, host="another-host"))
    assert not runlock.holder_alive(_info_of(sleeper.pid, start_ticks="1"))  # the pid was reused
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not runlock.holder_alive(_info_of(int(dead.stdout)))
    assert not runlock.holder_alive({"pid": "x"}) and not runlock.holder_alive({})


def test_a_held_lock_refuses_a_second_holder_and_release_frees_it(tmp_path):
    first = runlock.acquire(tmp_path / "run.lock", "r")
    held = json.loads((tmp_path / "run.lock").read_text())
    with pytest.raises(RunInUseError) as info:
        runlock.acquire(tmp_path / "run.lock", "r")  # another open file description: flock refuses
    assert isinstance(info.value, ConfigError)
    assert f"run 'r' is in use by pid {held['pid']} on host {held['host']} since {held['since']}" in str(info.value)
    first.release()
    first.release()  # idempotent
    assert not (tmp_path / "run.lock").exists()
    runlock.acquire(tmp_path / "run.lock", "r").release()


def test_without_flock_the_content_decides(tmp_path, sleeper, monkeypatch):
    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(runlock.fcntl, "flock", no_flock)
    path = tmp_path / "run.lock"
    path.write_text(json.dumps(_info_of(sleeper.pid)))
    with pytest.raises(RunInUseError, match=f"in use by pid {sleeper.pid} on host "):
        runlock.acquire(path, "r")
    assert json.loads(path.read_text())["pid"] == sleeper.pid  # the live holder's record is untouched
    for stale in (_info_of(sleeper.pid, boot_id="another-boot"), _info_of(sleeper.pid, start_ticks="1"), {}):
        path.write_text(json.dumps(stale))
        lock = runlock.acquire(path, "r")  # taken over
        assert json.loads(path.read_text())["pid"] == runlock.holder_info()["pid"]
        lock.release()
