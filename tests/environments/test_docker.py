"""The docker environment against a real engine (scripts/ensure_docker.sh starts it and builds the base image).

The environment contract (streams, argv, cwd, variables, timeouts, cancellation, concurrent commands, file
transfer, modes, confinement, close) is the conformance suite's: ``test_conformance.TestDockerEnvironment``.
"""

from __future__ import annotations

import asyncio
import http.server
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from agentcompass.environments.docker import DockerConfig, DockerProvider
from agentcompass.environments.docker.provider import owner_alive
from agentcompass.environments.docker.tarsafe import extract_to
from agentcompass.errors import ConfigError, ImageError, PathEscapeError, SandboxError
from agentcompass.interfaces import EnvSpec
from tests.environments.docker_support import BASE_IMAGE, REPO, SESSION, TEST_LABELS, api, session_containers

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("docker_engine")]
BENCH = f"test-{SESSION}"


def spec(task: str = "t", **kw) -> EnvSpec:
    labels = {**TEST_LABELS, **kw.pop("labels", {})}
    return EnvSpec(task_id=task, benchmark=BENCH, labels=labels, **kw)


def with_provider(body, **config):
    """Run ``body(provider)`` in a fresh event loop with a provider that is closed afterwards."""

    async def main():
        provider = DockerProvider(DockerConfig(**config))
        try:
            return await body(provider)
        finally:
            await provider.aclose()

    return asyncio.run(main())


def container_exists(cid: str) -> bool:
    import docker.errors

    try:
        api().inspect_container(cid)
    except docker.errors.NotFound:
        return False
    return True


@pytest.fixture
def built_images():
    """Removes the images this test session built (tagged agentcompass/test-<session>/...)."""
    yield
    client = api()
    for image in client.images(filters={"label": "agentcompass=1"}):
        for tag in image.get("RepoTags") or []:
            if tag.startswith(f"agentcompass/{BENCH}/"):
                client.remove_image(tag, force=True)


def make_context(tmp_path: Path, name: str = "ctx", extra: str = "") -> Path:
    ctx = tmp_path / name
    ctx.mkdir()
    (ctx / "Dockerfile").write_text(
        textwrap.dedent(f"""\
        ARG BASE_IMAGE
        FROM ${{BASE_IMAGE}}
        COPY hello.txt /opt/hello.txt
        RUN od -An -N8 -tx8 /dev/urandom > /opt/stamp {extra}
        """)
    )
    (ctx / "hello.txt").write_text(f"hello {uuid.uuid4().hex}\n")
    return ctx


# --------------------------------------------------------------------------- lifecycle and exec


def test_open_exec_close_on_the_base_image():
    async def body(p):
        env = await p.open(spec("open-exec", env={"FROM_TASK": "task"}))
        info = api().inspect_container(env.id)
        assert info["State"]["Running"] and info["HostConfig"]["Init"] is True
        labels = info["Config"]["Labels"]
        assert labels["agentcompass"] == "1" and labels["agentcompass.test.session"] == SESSION
        assert labels["extra.label"] == "from-config"
        assert env.describe() == {
            "provider": "docker",
            "container_id": env.id,
            "container_name": env.name,
            "image": BASE_IMAGE,
        }
        res = await env.exec("echo out; echo err >&2; pwd; echo $FROM_TASK $EXTRA; exit 3", env={"EXTRA": "x"})
        assert (res.exit_code, res.stdout, res.stderr) == (3, "out\n/app\ntask x\n", "err\n")
        assert not res.timed_out and res.duration_s > 0
        res = await env.exec(["ls", "-d", "."], cwd="/tmp")
        assert (res.exit_code, res.stdout) == (0, ".\n")
        res = await env.exec("true", cwd="/does/not/exist")
        assert res.exit_code == 126 and "does not exist" in res.stderr
        assert env.path("/app/x") == "/app/x"
        start = time.monotonic()
        await env.close()
        assert time.monotonic() - start < 5, "close must not wait for a stop timeout"
        assert env.id in p._removals, "the removal runs in the background"
        await env.close()  # idempotent
        with pytest.raises(SandboxError):
            await env.exec("true")
        await p.wait_removed()
        assert not container_exists(env.id) and not p._removals

    with_provider(body, labels={"extra.label": "from-config"})


def test_background_removals_are_bounded_and_awaited_by_aclose():
    from agentcompass.environments.docker import provider as provider_module

    async def body(p):
        envs = await asyncio.gather(*(p.open(spec(f"bg-{i}")) for i in range(provider_module.MAX_PENDING_REMOVALS + 3)))
        for env in envs:
            await env.close()
            assert len(p._removals) <= provider_module.MAX_PENDING_REMOVALS
        assert p._removals, "closes return before the removals end"
        return [env.id for env in envs]

    ids = with_provider(body)  # aclose awaits every removal
    assert not any(container_exists(cid) for cid in ids)


def test_exit_codes_come_in_band_and_from_the_engine_when_the_wrapper_dies():
    """No exec_inspect round trip per command; a killed wrapper (no trailer) still gets the engine's exit code."""

    async def body(p):
        calls = []
        run = p.run

        async def counting(fn, *args, **kwargs):
            calls.append(getattr(fn, "__name__", ""))
            return await run(fn, *args, **kwargs)

        p.run = counting
        env = await p.open(spec("in-band"))
        codes = [(await env.exec(f"echo x >&2; exit {n}")).exit_code for n in (0, 1, 42, 255)]
        res = await env.exec("printf 'no newline' >&2; exit 5")
        assert codes == [0, 1, 42, 255] and (res.exit_code, res.stderr) == (5, "no newline")
        assert calls.count("exec_start") == 5 and "exec_inspect" not in calls
        res = await env.exec("kill -9 $PPID; sleep 0.2; echo after >&2")
        assert res.exit_code == 137 and "exec_inspect" in calls and "\x01ac:" not in res.stderr

    with_provider(body)


def test_exec_output_is_capped_head_and_tail_and_decoded_with_replacement():
    async def body(p):
        env = await p.open(spec("output-cap"))
        res = await env.exec(
            "printf 'HEAD'; head -c 100000 /dev/zero | tr '\\0' a; printf 'TAIL'; printf '\\xff\\xfe' >&2"
        )
        assert res.truncated and res.stdout.startswith("HEAD") and res.stdout.endswith("TAIL")
        assert "bytes elided" in res.stdout and len(res.stdout) < 1200
        assert res.stderr == "\ufffd\ufffd"
        await env.close()

    with_provider(body, exec_output_limit=1000)


def test_exec_timeout_kills_the_whole_process_tree():
    async def body(p):
        env = await p.open(spec("timeout"))
        start = time.monotonic()
        res = await env.exec("sleep 101 & (setsid sleep 102 &) ; sleep 103", timeout=1)
        assert res.timed_out and res.exit_code == -1
        assert time.monotonic() - start < 8
        ps = await env.exec("ps -eo args")
        assert "sleep 10" not in ps.stdout, ps.stdout
        # a cancelled exec (e.g. the agent's time is up) takes its tree down too
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(env.exec("sleep 104 & sleep 105"), 1)
        ps = await env.exec("ps -eo args")
        assert "sleep 10" not in ps.stdout, ps.stdout
        assert (await env.exec("echo still usable")).stdout == "still usable\n"
        await env.close()

    with_provider(body)


def test_memory_limit_is_enforced():
    async def body(p):
        env = await p.open(spec("oom", memory_mb=512))  # the config value (64M) wins over the task's
        assert api().inspect_container(env.id)["HostConfig"]["Memory"] == 64 * 2**20
        res = await env.exec(
            "python3 -c \"b = bytearray(256 * 2**20); b[::4096] = b'x' * len(b[::4096]); print('survived')\"",
            timeout=60,
        )
        assert res.exit_code == 137 and "survived" not in res.stdout, res
        small = await env.exec("python3 -c \"b = bytearray(8 * 2**20); print('ok')\"", timeout=60)
        assert small.stdout == "ok\n"
        await env.close()
        env = await DockerProvider(DockerConfig()).open(spec("task-memory", memory_mb=200, cpus=0.5))
        host = api().inspect_container(env.id)["HostConfig"]
        assert host["Memory"] == 200 * 2**20 and host["NanoCpus"] == 5 * 10**8
        await env.close()

    with_provider(body, memory="64M")


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello from the host")

    def log_message(self, *args):
        pass


# the default gateway of a container, read from its routing table (no optional field of the engine's answers)
_GATEWAY = (
    "python3 -c \"import socket, struct; rows = [l.split() for l in open('/proc/net/route')][1:]; "
    "print(next(socket.inet_ntoa(struct.pack('<L', int(r[2], 16))) for r in rows if r[1] == '00000000'))\""
)


def test_network_none_cannot_reach_a_server_on_the_host():
    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def body(p):
        bridge = await p.open(spec("net-bridge"))
        none = await p.open(spec("net-none", network="none"))
        gateway = (await bridge.exec(_GATEWAY, timeout=30)).stdout.strip()
        url = f"http://{gateway}:{server.server_address[1]}/"
        fetch = (
            f"python3 -c \"import urllib.request; print(urllib.request.urlopen('{url}', timeout=5).read().decode())\""
        )
        ok, blocked = await asyncio.gather(bridge.exec(fetch, timeout=30), none.exec(fetch, timeout=30))
        assert ok.exit_code == 0 and ok.stdout == "hello from the host\n", ok
        assert blocked.exit_code != 0 and "hello" not in blocked.stdout
        assert "unreachable" in blocked.stderr.lower() or "URLError" in blocked.stderr
        assert api().inspect_container(none.id)["HostConfig"]["NetworkMode"] == "none"
        await bridge.close()
        await none.close()

    try:
        with_provider(body)
    finally:
        server.shutdown()


# --------------------------------------------------------------------------- images


def test_dockerfile_build_then_cache_hit(tmp_path, built_images):
    ctx = make_context(tmp_path)

    async def first(p):
        start = time.monotonic()
        env = await p.open(spec("Build Me/1", dockerfile_dir=ctx))
        built_s = time.monotonic() - start
        stamp, hello = await env.read_file("/opt/stamp"), await env.read_file("/opt/hello.txt")
        await env.close()
        return env.image, stamp, hello, built_s

    image, stamp, hello, _ = with_provider(first)
    assert image.startswith(f"agentcompass/{BENCH}/build-me-1:") and len(image.rsplit(":", 1)[1]) == 16
    assert hello == (ctx / "hello.txt").read_bytes()
    image2, stamp2, _, reopen_s = with_provider(first)  # a new provider: the engine has the tag
    assert (image2, stamp2) == (image, stamp), "an image with the same tag must not be rebuilt"
    assert reopen_s < 5
    (ctx / "hello.txt").write_text("changed\n")
    image3, stamp3, hello3, _ = with_provider(first)
    assert image3 != image and stamp3 != stamp and hello3 == b"changed\n"


def test_opening_a_built_task_costs_create_and_start_only(tmp_path, built_images):
    """Creating the container is the presence check of the task's image; base image ids are asked once."""
    ctxs = [make_context(tmp_path, f"ctx{i}") for i in range(3)]

    async def body(p, names):
        run = p.run

        async def recording(fn, *args, **kwargs):
            names.append(getattr(fn, "__name__", ""))
            return await run(fn, *args, **kwargs)

        p.run = recording
        envs = [await p.open(spec(f"cheap-{i}", dockerfile_dir=ctx)) for i, ctx in enumerate(ctxs)]
        for env in envs:
            await env.close()
        return [env.image for env in envs]

    images = with_provider(lambda p: body(p, []))  # builds (or tags) the three images
    again: list[str] = []
    assert with_provider(lambda p: body(p, again)) == images
    api_calls = [n for n in again if n not in ("_make_client", "context_hash", "close")]
    first = api_calls.index("create_container")
    # once per request: the base image (present: one inspect; absent: inspect, pull, inspect the fallback)
    assert api_calls[:first] in (["inspect_image"], ["inspect_image", "_pull_blocking", "inspect_image"]), again
    assert api_calls[first:] == ["create_container", "start"] * 3 + ["remove_container"] * 3, again


def test_concurrent_opens_of_one_dockerfile_build_once(tmp_path, built_images):
    ctx = make_context(tmp_path)

    async def body(p):
        await p.connect()
        calls = []
        real = p._images._build_blocking
        p._images._build_blocking = lambda *a, **k: calls.append(a[1]) or real(*a, **k)
        envs = await asyncio.gather(*(p.open(spec("same-task", dockerfile_dir=ctx)) for _ in range(4)))
        stamps = {await e.read_file("/opt/stamp") for e in envs}
        # a second task with the same context gets a tag on the same image, not a build
        other = await p.open(spec("other-task", dockerfile_dir=ctx))
        same = api().inspect_image(other.image)["Id"] == api().inspect_image(envs[0].image)["Id"]
        for env in [*envs, other]:
            await env.close()
        return calls, stamps, {e.image for e in envs}, same

    calls, stamps, images, same = with_provider(body)
    assert len(calls) == 1 and len(stamps) == 1 and len(images) == 1 and same


def test_an_image_that_can_be_neither_pulled_nor_built_is_an_image_error(tmp_path, built_images):
    missing = f"agentcompass-test/does-not-exist-{SESSION}:1"

    async def body(p):
        with pytest.raises(ImageError) as pulled:
            await p.open(spec("no-image", image=missing))
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "Dockerfile").write_text("ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN echo boom && exit 3\n")
        with pytest.raises(ImageError) as built:
            await p.open(spec("broken-build", image=missing, dockerfile_dir=broken))
        return pulled.value, built.value

    pulled, built = with_provider(body)
    assert missing in str(pulled) and "pull" in str(pulled) and pulled.retryable is False
    assert f"agentcompass/{BENCH}/broken-build:" in str(built) and "non-zero code" in str(built)
    assert missing in str(built) and built.retryable is False

    async def never(p):
        with pytest.raises(ImageError, match="pull_policy is 'never'"):
            await p.open(spec("never", image=missing))
        env = await p.open(spec("local-base", image=BASE_IMAGE))  # present locally: fine under never
        await env.close()

    with_provider(never, pull_policy="never")
    assert not session_containers()


def test_a_build_that_takes_too_long_is_stopped(tmp_path, built_images):
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "Dockerfile").write_text(f"ARG BASE_IMAGE\nFROM ${{BASE_IMAGE}}\nRUN echo {uuid.uuid4().hex} && sleep 60\n")

    async def body(p):
        start = time.monotonic()
        with pytest.raises(ImageError, match="timed out after 3s"):
            await p.open(spec("slow-build", dockerfile_dir=slow, build_timeout_s=600))  # the config wins
        return time.monotonic() - start

    assert with_provider(body, build_timeout_s=3) < 15


# --------------------------------------------------------------------------- files


def test_uploads_are_root_owned_and_links_stay_links_inside(tmp_path):
    """Docker's own part of file transfer (the rest is the conformance suite's, test_conformance.py)."""
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "sub" / "bin.dat").write_bytes(bytes(range(256)) * 100)
    (src / "link").symlink_to("sub/bin.dat")
    if os.geteuid() == 0:
        os.chown(src / "a.txt", 65534, 65534)

    async def body(p):
        env = await p.open(spec("files"))
        await env.upload(src, "/data/in")
        assert (await env.exec("readlink /data/in/link")).stdout == "sub/bin.dat\n"
        assert (await env.exec("stat -c %u:%g /data/in/a.txt")).stdout == "0:0\n"  # root-owned inside
        assert await env.read_file("/data/in/link") == (src / "sub" / "bin.dat").read_bytes()
        await env.close()

    with_provider(body)


def _tar(*members: tuple[str, str, str]) -> io.BytesIO:
    """Members as (type, name, payload-or-link-target)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for kind, name, value in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(value)
                tar.addfile(info, io.BytesIO(value.encode()))
            else:
                info.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
                info.linkname = value
                tar.addfile(info)
    buf.seek(0)
    return buf


@pytest.mark.parametrize(
    "members",
    [
        [("file", "/etc/evil", "x")],
        [("file", "out", ""), ("file", "out/../../evil", "x")],
        [("file", "out/a", "a"), ("sym", "out/link", "/etc")],
        [("file", "out/a", "a"), ("sym", "out/link", "../../..")],
        [("file", "out/a", "a"), ("lnk", "out/hard", "../../evil")],
        [("file", "out/a", "a"), ("sym", "out/here", "."), ("sym", "out/l2", "here/../../evil")],
        [("file", "out/a", "a"), ("file", "other/evil", "x")],
    ],
    ids=["absolute", "dotdot", "abs-symlink", "rel-symlink-out", "hardlink-out", "symlink-chain", "second-top"],
)
def test_tar_members_escaping_their_destination_are_refused(tmp_path, members):
    dest = tmp_path / "dest" / "out"
    with pytest.raises(PathEscapeError):
        extract_to(_tar(*members), dest)
    assert not (tmp_path / "evil").exists() and not (tmp_path / "dest" / "evil").exists()
    assert not dest.exists()
    extract_to(_tar(("file", "out/ok.txt", "fine"), ("sym", "out/in", "ok.txt")), dest)  # the control
    assert (dest / "ok.txt").read_text() == "fine" and os.readlink(dest / "in") == "ok.txt"


# --------------------------------------------------------------------------- keep and cleanup


def test_keep_leaves_the_container_running(tmp_path):
    run_id = f"keep-{uuid.uuid4().hex[:8]}"

    async def body(p):
        env = await p.open(spec("kept", keep=True, labels={"agentcompass.run_id": run_id}))
        await env.write_file("/app/state", "x")
        await env.close()
        assert api().inspect_container(env.id)["State"]["Running"]
        assert await p.cleanup(run_id) == 0  # kept containers are not leftovers
        assert container_exists(env.id)
        assert await p.remove_container(env.id)
        return env.id

    cid = with_provider(body)
    assert not container_exists(cid)


def test_cleanup_of_a_run_removes_its_leftovers_only():
    run_a, run_b = (f"run-{uuid.uuid4().hex[:8]}" for _ in range(2))

    async def leave(p):  # like a process that died without closing its environments
        ids = [
            (await p.open(spec(f"left-{i}", labels={"agentcompass.run_id": run}))).id
            for i, run in enumerate([run_a, run_a, run_b])
        ]
        p._open.clear()
        return ids

    ids = with_provider(leave)
    assert with_provider(lambda p: p.cleanup(run_a)) == 2
    assert [container_exists(i) for i in ids] == [False, False, True]
    assert with_provider(lambda p: p.cleanup(run_b)) == 1
    assert not any(container_exists(i) for i in ids)


def test_cleanup_after_sigkill_and_live_owners_are_spared(tmp_path):
    run_id = f"killed-{uuid.uuid4().hex[:8]}"
    script = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(REPO)!r})
        from agentcompass.environments.docker import DockerProvider
        from agentcompass.interfaces import EnvSpec
        async def main():
            p = DockerProvider()
            for i in range(2):
                await p.open(EnvSpec(task_id=f"victim-{{i}}", labels={{**{TEST_LABELS!r},
                                     "agentcompass.run_id": {run_id!r}}}))
            print("ready", flush=True)
            await asyncio.sleep(600)
        asyncio.run(main())
        """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert len(session_containers({"agentcompass.run_id": run_id})) == 2
        assert with_provider(lambda p: p.cleanup(run_id)) == 0  # its owner still runs
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert with_provider(lambda p: p.cleanup(run_id)) == 2
    assert session_containers({"agentcompass.run_id": run_id}) == []
    assert owner_alive("otherhost:1:1") is False


# --------------------------------------------------------------------------- configuration


def test_config_from_yaml_and_bad_values():
    import yaml

    from agentcompass._config.registry import build, conf_dir
    from agentcompass.interfaces import ComponentContext

    cfg = yaml.safe_load((conf_dir() / "environment" / "docker.yaml").read_text())
    provider = build("environment", cfg, ComponentContext(data_dir=Path("/tmp")))
    assert (provider.id, provider.name, provider.max_concurrent) == ("docker", "docker", None)
    assert DockerConfig(memory="2G").memory_mb == 2048 and DockerConfig(memory=300).memory_mb == 300
    with pytest.raises(ConfigError, match="memory"):
        build("environment", {**cfg, "memory": "lots"}, ComponentContext(data_dir=Path("/tmp")))
    with pytest.raises(ConfigError, match="pull_policy"):
        build("environment", {**cfg, "pull_policy": "sometimes"}, ComponentContext(data_dir=Path("/tmp")))
    with pytest.raises(ConfigError, match="valid keys"):
        build("environment", {**cfg, "mem": "1G"}, ComponentContext(data_dir=Path("/tmp")))
    limited = build("environment", {**cfg, "max_concurrent": 3}, ComponentContext(data_dir=Path("/tmp")))
    assert limited.max_concurrent == 3


# --------------------------------------------------------------------------- end to end


@pytest.mark.slow
@pytest.mark.parametrize("harness,reward", [("oracle", 1.0), ("nop", 0.0)])
def test_demo_benchmark_in_docker(tmp_path, harness, reward):
    from agentcompass import run_evaluation

    result = run_evaluation(
        benchmark="demo",
        harness=harness,
        model="none",
        environment="docker",
        environment_params={"memory": "1G", "labels": TEST_LABELS},
        task_concurrency=4,
        progress="none",
        log_level="WARNING",
        results_dir=str(tmp_path / "results"),
        execution_params={"artifacts": {"save": ["/logs/verifier"], "max_files": 5}},
    )
    rows = result["summary"]["tasks"]
    assert len(rows) == 7 and {row["reward"] for row in rows} == {reward}, rows
    assert result["metrics"]["n_errors"] == 0
    run_dir = Path(result["paths"]["run_dir"])
    manifests = sorted(run_dir.glob("tasks/*/sample-*/attempt-*/artifacts/manifest.json"))
    assert len(manifests) == 7
    assert all(f["path"].startswith("/logs/verifier/") for m in manifests for f in json.loads(m.read_text())["files"])
    run_id = result["metadata"]["run_id"]
    assert session_containers() == []  # the run's containers carried the test labels
    assert api().containers(all=True, filters={"label": f"agentcompass.run_id={run_id}"}) == []
