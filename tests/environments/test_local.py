"""The local environment: real subprocesses in a temporary workspace.

The environment contract (exec, streams, argv, cwd, timeouts and cancellation killing process trees, file
transfer, modes, confinement, close) is the conformance suite's: ``test_conformance.TestLocalEnvironment``. This
file holds what is the local environment's own (host variables, workspaces, host symlinks, reaping, caps).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from agentcompass._config.registry import build
from agentcompass.errors import ConfigError, PathEscapeError, SandboxError
from agentcompass.interfaces import ComponentContext, EnvSpec
from tests.environments.conftest import run


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def own_session(pid: int) -> bool:
    """True once ``pid`` leads its own session (setsid has run)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return int(fields[3]) == pid


def wait_dead(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_open_creates_layout_and_describe(make_provider, spec):
    async def body():
        env = await make_provider().open(spec)
        ws = Path(env.describe()["workspace"])
        assert env.describe()["provider"] == "local"
        assert (ws / "app").is_dir() and (ws / "logs/agent").is_dir() and (ws / "logs/verifier").is_dir()
        assert env.path("/app/x") == str(ws / "app/x")
        assert env.path("x") == str(ws / "app/x")  # relative to the workdir
        assert env.path(env.path("/app/x")) == str(ws / "app/x")  # mapping is idempotent
        marker = json.loads(ws.with_name(ws.name + ".json").read_text())
        assert marker["run_id"] == "run-a" and marker["task_id"] == "demo/task 1"
        await env.close()

    run(body())


def test_exec_environment_variables(make_provider, monkeypatch):
    monkeypatch.setenv("HOST_VISIBLE", "yes")
    monkeypatch.setenv("SOME_API_KEY", "sk-should-not-leak")
    spec = EnvSpec(task_id="t", env={"FROM_SPEC": "1", "SHARED": "spec"})

    async def body():
        env = await make_provider(env={"FROM_CONFIG": "c"}, pass_env_extra=["HOST_*"]).open(spec)
        ws = env.describe()["workspace"]
        cmd = (
            "echo $AGENTCOMPASS_ROOT $AGENTCOMPASS_WORKDIR $AGENTCOMPASS_LOGS_DIR $AGENTCOMPASS_TESTS_DIR "
            "$AGENTCOMPASS_SOLUTION_DIR; echo $HOST_VISIBLE $FROM_SPEC $FROM_CONFIG $SHARED "
            "${SOME_API_KEY:-dropped} $HOME"
        )
        r = await env.exec(cmd, env={"SHARED": "call", "AGENTCOMPASS_ROOT": "/elsewhere"})
        lines = r.stdout.splitlines()
        assert lines[0].split() == [ws, f"{ws}/app", f"{ws}/logs", f"{ws}/tests", f"{ws}/solution"]
        assert lines[1].split() == ["yes", "1", "c", "call", "dropped", os.environ["HOME"]]
        await env.close()

    run(body())


SECRET_LOOKING = [
    "PRIVATE_KEY",
    "OPENAI_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "DATABASE_URL",
    "AUTH",
    "CREDENTIALS",
    "SSH_AUTH_SOCK",
    "MY_API_KEY",
    "GITHUB_TOKEN",
    "HTTPS_PROXY",
    "UNLISTED_THING",
]


def test_host_variables_are_passed_by_allow_list_only(make_provider, spec, monkeypatch):
    for name in SECRET_LOOKING:
        monkeypatch.setenv(name, f"value-of-{name}")
    monkeypatch.setenv("LC_TESTING", "C")

    async def body():
        env = await make_provider().open(spec)
        seen = dict(line.split("=", 1) for line in (await env.exec("env")).stdout.splitlines() if "=" in line)
        await env.close()
        return seen

    seen = run(body())
    leaked = [n for n in SECRET_LOOKING if n in seen]
    assert leaked == [], leaked
    assert seen["PATH"] == os.environ["PATH"] and seen["HOME"] == os.environ["HOME"]
    assert seen["LC_TESTING"] == "C"  # a pattern of the default list (LC_*)
    assert not any("value-of-" in v for v in seen.values())


def test_background_child_does_not_block_and_close_kills_it(make_provider, spec, tmp_path):
    pidfile, daemon_pid = tmp_path / "pid", tmp_path / "daemon.pid"

    async def body():
        env = await make_provider(background_grace_s=0.2).open(spec)
        start = time.monotonic()
        r = await env.exec(f"sleep 60 & echo $! > {pidfile}; echo started")
        assert r.exit_code == 0 and r.stdout == "started\n" and time.monotonic() - start < 3
        # a daemon that leaves the process group (like a tmux server) is found by its environment
        await env.exec(f"setsid sleep 61 > /dev/null 2>&1 < /dev/null & echo $! > {daemon_pid}")
        deadline = time.monotonic() + 5
        while not own_session(int(daemon_pid.read_text())) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert own_session(int(daemon_pid.read_text())), "the daemon never left the process group"
        assert alive(int(pidfile.read_text()))
        await env.close()

    run(body())
    assert wait_dead(int(pidfile.read_text())) and wait_dead(int(daemon_pid.read_text()))


def test_output_head_tail_cap_and_undecodable_bytes(make_provider, spec):
    async def body():
        env = await make_provider(exec_output_limit=200).open(spec)
        r = await env.exec("seq 1 100000")
        assert r.truncated
        assert r.stdout.startswith("1\n2\n3\n") and r.stdout.endswith("99999\n100000\n")
        assert "bytes elided" in r.stdout and len(r.stdout) < 300
        full = len("\n".join(str(i) for i in range(1, 100001))) + 1
        assert f"[... {full - 200} bytes elided ...]" in r.stdout
        r = await env.exec(["python3", "-c", "import sys; sys.stdout.buffer.write(b'ok\\xff\\xfe!')"])
        assert r.stdout == "ok\ufffd\ufffd!" and not r.truncated
        await env.close()

    run(body())


def test_file_methods_refuse_paths_escaping_the_workspace(make_provider, spec, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("host file")

    async def body():
        env = await make_provider().open(spec)
        for bad in ("/../etc/passwd", "../../x", "/app/../../x"):
            with pytest.raises(PathEscapeError):
                await env.read_file(bad)
        os.symlink(outside / "secret.txt", env.path("/app/link"))
        os.symlink(outside, env.path("/app/dirlink"))
        with pytest.raises(PathEscapeError):
            await env.read_file("/app/link")
        with pytest.raises(PathEscapeError):
            await env.write_file("/app/dirlink/new.txt", "x")
        with pytest.raises(PathEscapeError):
            await env.upload(outside / "secret.txt", "/app/dirlink/copied.txt")
        with pytest.raises(PathEscapeError):
            await env.download("/app/link", tmp_path / "got.txt")
        await env.close()

    run(body())
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "host file"


def test_close_removes_workspace_and_is_idempotent(make_provider, spec):
    async def body():
        env = await make_provider().open(spec)
        ws = Path(env.describe()["workspace"])
        await env.exec(
            [
                "bash",
                "-c",
                f"mkdir -p {env.path('/app/ro')} && touch {env.path('/app/ro/f')} && chmod a-w {env.path('/app/ro')}",
            ]
        )
        await env.close()
        await env.close()
        assert not ws.exists() and not ws.with_name(ws.name + ".json").exists()
        with pytest.raises(SandboxError):
            await env.exec("true")

    run(body())


def test_keep_leaves_workspace_and_cleanup_spares_it(make_provider, local_root):
    async def body():
        provider = make_provider()
        env = await provider.open(EnvSpec(task_id="kept", keep=True, labels={"agentcompass.run_id": "r"}))
        await env.write_file("/app/result.txt", "stays")
        await env.close()
        ws = Path(env.describe()["workspace"])
        assert (ws / "app/result.txt").read_text() == "stays"
        assert await provider.cleanup("r") == 0 and await provider.cleanup(None) == 0
        assert ws.exists()

    run(body())


_OPEN_AND_DIE = """
import asyncio, os, signal, sys
from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.interfaces import EnvSpec

async def main():
    provider = LocalProvider(LocalConfig(root_dir=sys.argv[1]))
    for i, run_id in enumerate(["r1", "r1", "r2"]):
        env = await provider.open(EnvSpec(task_id=f"t{i}", labels={"agentcompass.run_id": run_id}))
        print(env.id, flush=True)
    if sys.argv[2] == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def _owner_process(local_root, mode):
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", _OPEN_AND_DIE, str(local_root), mode],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    ids = [proc.stdout.readline().strip() for _ in range(3)]
    return proc, ids


def test_cleanup_removes_leftovers_of_one_dead_run(make_provider, local_root):
    proc, ids = _owner_process(local_root, "die")
    assert proc.wait(timeout=30) == -9

    async def body():
        later = make_provider()  # a later process reaps the workspaces of run r1 that nobody closed
        assert await later.cleanup("r1") == 2
        assert [Path(i).exists() for i in ids] == [False, False, True]
        assert await later.cleanup(None) == 1
        assert not Path(ids[2]).exists()

    run(body())


def test_cleanup_spares_workspaces_of_a_live_owner(make_provider, local_root):
    proc, ids = _owner_process(local_root, "live")
    try:

        async def body():
            other = make_provider()
            assert await other.cleanup("r1") == 0 and await other.cleanup(None) == 0
            mine = await other.open(EnvSpec(task_id="mine", labels={"agentcompass.run_id": "r1"}))
            assert await make_provider().cleanup("r1") == 0  # open in this process: spared too
            await mine.close()

        run(body())
        assert all(Path(i).exists() for i in ids)
    finally:
        proc.kill()
        proc.wait()
    assert run(make_provider().cleanup(None)) == 3


def test_double_forking_and_setsid_processes_do_not_survive_close(make_provider, spec, tmp_path):
    pids = tmp_path / "pids"
    script = (
        f"for i in $(seq 10); do setsid sleep 307 & echo $! >> {pids}; done; "
        f"( ( for i in $(seq 10); do sleep 308 & echo $! >> {pids}; done ) & ); "
        f"( setsid bash -c 'while true; do sleep 309 & echo $! >> {pids}; sleep 0.05; done' & ); sleep 0.5"
    )

    async def body():
        env = await make_provider(background_grace_s=0.1).open(spec)
        r = await env.exec(script, timeout=30)
        assert r.exit_code == 0
        assert len(pids.read_text().split()) >= 20
        await env.close()

    run(body())
    time.sleep(0.2)
    survivors = [int(p) for p in pids.read_text().split() if alive(int(p))]
    assert survivors == []


def test_built_from_config_through_the_registry(local_root):
    cfg = {
        "_target_": "agentcompass.environments.local.LocalProvider",
        "id": "local",
        "root_dir": str(local_root),
        "exec_output_limit": 4096,
    }
    provider = build("environment", cfg, ComponentContext(data_dir=local_root))
    assert provider.name == "local" and provider.id == "local" and provider.config.exec_output_limit == 4096
    with pytest.raises(ConfigError, match="unknown key 'bogus'"):
        build("environment", {**cfg, "bogus": 1}, ComponentContext(data_dir=local_root))


def test_shell_startup_variables_are_not_passed_to_host_commands(make_provider, spec, tmp_path):
    """BASH_ENV names a start-up file *inside an image*; on the host it would source the user's rc files."""
    import asyncio as _asyncio

    rc = tmp_path / "rc.sh"
    rc.write_text("echo SOURCED\n")

    async def go(**cfg):
        provider = make_provider(**cfg)
        env = await provider.open(spec)
        try:
            return (await env.exec("echo body", env={"BASH_ENV": str(rc)})).stdout
        finally:
            await env.close()

    assert _asyncio.run(go()).split() == ["body"]
    assert _asyncio.run(go(allow_shell_startup_env=True)).split() == ["SOURCED", "body"]


def test_artifact_save_never_copies_a_host_file_through_a_symlink(make_provider, spec, tmp_path):
    from agentcompass._orchestrator.record.artifacts import save_artifacts

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("host secret " * 1000)

    async def body():
        env = await make_provider().open(spec)
        os.symlink(outside / "secret.txt", env.path("/app/link.txt"))
        os.symlink(outside, env.path("/app/dirlink"))
        await env.write_file("/app/own.txt", "mine")
        manifest = await save_artifacts(
            env,
            ["/app/*", "/app/dirlink/*"],
            tmp_path / "saved",
            max_files=10,
            max_file_bytes=100,
            max_total_bytes=10_000,
        )
        await env.close()
        return manifest

    manifest = run(body())
    saved = {f["path"]: f for f in manifest["files"]}
    assert saved["/app/own.txt"]["status"] == "saved"
    assert saved["/app/dirlink/secret.txt"]["status"] == "skipped"  # oversize: cut through read_head
    assert "PathEscapeError" in saved["/app/dirlink/secret.txt"]["reason"]
    copied = [p for p in (tmp_path / "saved").rglob("*") if p.is_file()]
    assert not any("host secret" in p.read_text(errors="replace") for p in copied)


def test_read_and_write_cannot_be_raced_out_of_the_workspace(make_provider, spec, tmp_path):
    """A thread swaps /app/d between a real directory and a symlink to a host directory while the file
    methods run: nothing outside the workspace is ever read or written."""
    import threading

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("HOST")
    stop = threading.Event()

    async def body():
        env = await make_provider().open(spec)
        d = Path(env.path("/app/d"))
        inside = Path(env.path("/app/real"))
        inside.mkdir()
        (inside / "f.txt").write_text("WS")

        def swap():
            while not stop.is_set():
                for make in (lambda: os.symlink(outside, d), lambda: os.symlink(inside, d)):
                    try:
                        make()
                    except FileExistsError:
                        pass
                    try:
                        d.unlink()
                    except FileNotFoundError:
                        pass
                    except IsADirectoryError:  # a write made it a real directory (inside: harmless)
                        shutil.rmtree(d, ignore_errors=True)

        t = threading.Thread(target=swap, daemon=True)
        t.start()
        reads, escapes = set(), 0
        try:
            for i in range(300):
                try:
                    reads.add(await env.read_file("/app/d/f.txt"))
                except (PathEscapeError, OSError):  # refused, or lost the race (a vanished entry)
                    escapes += 1
                try:
                    await env.write_file(f"/app/d/w{i}.txt", "x")
                except (PathEscapeError, OSError):
                    pass
        finally:
            stop.set()
            t.join()
        await env.close()
        return reads, escapes

    reads, escapes = run(body())
    assert b"HOST" not in reads
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]
    assert escapes > 0  # the swap did race the reads


def test_symlinks_inside_the_workspace_are_followed(make_provider, spec):
    async def body():
        env = await make_provider().open(spec)
        await env.write_file("/app/real/f.txt", "inside")
        os.symlink(env.path("/app/real"), env.path("/app/abs"))
        os.symlink("real/f.txt", env.path("/app/rel"))
        got = (await env.read_file("/app/abs/f.txt"), await env.read_file("/app/rel"))
        await env.write_file("/app/abs/g.txt", "through a link")
        assert Path(env.path("/app/real/g.txt")).read_text() == "through a link"
        await env.close()
        return got

    assert run(body()) == (b"inside", b"inside")


def test_a_download_refuses_a_link_chain_leading_out_of_the_tree(make_provider, spec, tmp_path):
    """Each link is inside on its own (``l`` -> ``.``, ``m`` -> ``l/..``), together they climb out."""

    async def body():
        env = await make_provider().open(spec)
        await env.write_file("/app/out/a.txt", "a")
        os.symlink(".", env.path("/app/out/l"))
        os.symlink("l/..", env.path("/app/out/m"))
        with pytest.raises(PathEscapeError, match="m"):
            await env.download("/app/out", tmp_path / "got")
        os.unlink(env.path("/app/out/m"))
        await env.download("/app/out", tmp_path / "got")  # the inside link alone is kept
        await env.close()

    run(body())
    assert os.readlink(tmp_path / "got" / "l") == "." and (tmp_path / "got" / "a.txt").read_text() == "a"
