"""Uploads delivered with the next command (environments/docker/staging.py) against a real engine: the files
extracted on the command's stdin are the files ``put_archive`` makes, every command sees them, and where the
container cannot extract them (a non-root user) they go through ``put_archive``, the command running once."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path

import pytest

from agentcompass.errors import SandboxError
from tests.environments.test_docker import built_images, spec, with_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("docker_engine")]
STAT = "cd {0} && find . -mindepth 1 | sort | xargs stat -c '%n %F %a %u:%g %s %Y %N'"


def recording(p) -> list[str]:
    """Names of the provider's blocking calls from now on (environments opened later record theirs)."""
    names: list[str] = []
    run = p.run

    async def rec(fn, *args, **kwargs):
        names.append(getattr(fn, "__name__", ""))
        return await run(fn, *args, **kwargs)

    p.run = rec
    return names


def make_tree(root: Path) -> Path:
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "sub" / "bin.dat").write_bytes(bytes(range(256)) * 300)
    (root / "sub" / "deeper" / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "sub" / "deeper" / "run.sh").chmod(0o750)
    (root / "sub").chmod(0o711)
    (root / "link").symlink_to("sub/bin.dat")
    os.utime(root / "a.txt", (1_600_000_000, 1_600_000_000))
    return root


def test_files_extracted_with_the_command_equal_put_archive(tmp_path):
    src = make_tree(tmp_path / "src")

    async def body(p):
        names = recording(p)
        env = await p.open(spec("staged-equal"))
        await env.exec(
            "mkdir -p /srv/fused/sub /srv/put/sub && echo old > /srv/fused/sub/old.txt && "
            "echo old > /srv/put/sub/old.txt"
        )
        names.clear()
        await env.upload(src, "/srv/fused")
        await env.write_file("/srv/fused/written.txt", "w\n", mode=0o600)
        fused = await env.exec(STAT.format("/srv/fused"))
        assert "_put" not in names, "delivered on the command's stdin"
        await env.upload(src, "/srv/put")
        await env.write_file("/srv/put/written.txt", "w\n", mode=0o600)
        assert await env.read_file("/srv/put/written.txt") == b"w\n"  # a read delivers by put_archive
        assert names.count("_put") == 1
        put = await env.exec(STAT.format("/srv/put"))
        await env.close()
        return fused, put

    fused, put = with_provider(body)

    def written_at_any_second(listing: str) -> str:  # write_file stamps the time of the call
        return "\n".join(
            " ".join(ln.split()[:6] + ln.split()[7:]) if "written.txt" in ln else ln for ln in listing.splitlines()
        )

    assert fused.exit_code == 0 and fused.stderr == ""
    assert written_at_any_second(fused.stdout) == written_at_any_second(put.stdout)
    assert "./sub/old.txt" in fused.stdout and "./sub directory 711 0:0" in fused.stdout
    assert (
        "./a.txt regular file 644 0:0 6 1600000000" in fused.stdout
        or "./a.txt regular file 664 0:0 6 1600000000" in fused.stdout
    )


def test_every_command_sees_staged_files_and_the_output_is_the_commands_own(tmp_path):
    (tmp_path / "f.txt").write_text("payload\n")

    async def body(p):
        env = await p.open(spec("staged-concurrent"))
        await env.upload(tmp_path / "f.txt", "/work/f.txt")
        results = await asyncio.gather(
            *(env.exec("cat /work/f.txt; cat > /dev/null; echo err >&2; exit 3") for _ in range(4))
        )
        await env.close()
        return results

    for res in with_provider(body):
        assert (res.exit_code, res.stdout, res.stderr) == (3, "payload\n", "err\n")


def test_a_non_root_container_gets_the_files_through_put_archive(tmp_path, built_images):  # noqa: F811
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    (ctx / "Dockerfile").write_text(
        textwrap.dedent("""\
        ARG BASE_IMAGE
        FROM ${BASE_IMAGE}
        RUN mkdir -p /app && chown nobody /app
        USER nobody
        """)
    )
    (tmp_path / "solve.sh").write_text("echo ran >> /app/count.txt\n")

    async def body(p):
        names = recording(p)
        env = await p.open(spec("staged-nobody", dockerfile_dir=ctx))
        names.clear()
        await env.upload(tmp_path / "solve.sh", "/app/solve.sh")
        res = await env.exec("sh /app/solve.sh && id -u && cat /app/count.txt")
        await env.close()
        return res, names

    res, names = with_provider(body)
    assert res.exit_code == 0 and res.stdout.split("\n")[1:] == ["ran", ""] and res.stdout.split()[0] != "0"
    assert names.count("_put") == 1 and names.count("exec_create") == 2


def test_what_is_in_the_way_is_replaced_as_put_archive_replaces_it(tmp_path):
    """A directory over a file or a symlink, a file over a non-empty directory (tar refuses: put_archive does it)."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("x")
    (tmp_path / "f").write_text("f")
    layout = (
        "mkdir -p {0}/full/inner && echo file > {0}/taken && ln -s /etc {0}/lnk && echo keep > {0}/keep && "
        "touch -d @1600000000 {0}/keep"
    )

    async def place(env, root, deliver):
        await env.exec(layout.format(root))
        for src, dst in (("d", "taken"), ("f", "full"), ("d", "lnk")):
            await env.upload(tmp_path / src, f"{root}/{dst}")
        await deliver(f"{root}/keep")
        return (await env.exec(STAT.format(root))).stdout

    async def body(p):
        names = recording(p)
        env = await p.open(spec("staged-replace"))
        fused = await place(env, "/srv/a", lambda path: env.exec(f"cat {path}"))
        puts = names.count("_put")
        put = await place(env, "/srv/b", env.read_file)
        await env.close()
        return fused, put, puts, names.count("_put") - puts

    fused, put, fused_puts, put_puts = with_provider(body)
    assert fused == put and "./full regular file" in fused and "./lnk directory" in fused
    assert fused_puts == 1 and put_puts == 1  # tar refused the file over a directory: put_archive placed it


# --------------------------------------------------------------------------- prepared commands


def test_a_prepared_command_runs_in_the_next_exec_before_the_upload_and_the_command(tmp_path):
    (tmp_path / "sol").mkdir()
    (tmp_path / "sol" / "solve.sh").write_text("echo solved\n")

    async def body(p):
        names = recording(p)
        env = await p.open(spec("prepared"))
        await env.exec("mkdir -p /solution && echo stale > /solution/stale.txt")
        names.clear()
        await env.prepare("rm -rf /solution && mkdir -p /logs/agent", what="task t: setup", timeout=60)
        await env.upload(tmp_path / "sol", "/solution")
        results = await asyncio.gather(*(env.exec("ls /solution /logs; bash /solution/solve.sh") for _ in range(3)))
        await env.close()
        return results, names

    results, names = with_provider(body)
    for res in results:
        assert (res.exit_code, res.stderr) == (
            0,
            "",
        ) and res.stdout == "/logs:\nagent\n\n/solution:\nsolve.sh\nsolved\n"
    assert names.count("exec_create") == 3 and "_put" not in names


def test_a_failed_prepared_command_fails_the_next_operation_and_the_command_does_not_run():
    async def body(p):
        env = await p.open(spec("prepared-fail"))
        await env.prepare("echo cannot >&2; exit 4", what="task t: setup")
        with pytest.raises(SandboxError, match=r"^task t: setup failed \(exit 4\): cannot$"):
            await env.exec("touch /tmp/ran")
        after = await env.exec("ls /tmp/ran")
        await env.prepare("exit 3", what="task t: setup")
        with pytest.raises(SandboxError, match="exit 3"):
            await env.read_file("/etc/hostname")
        await env.close()
        return after

    assert with_provider(body).exit_code != 0, "the command after a failed preparation must not have run"


def test_a_file_read_runs_the_prepared_command_first():
    async def body(p):
        env = await p.open(spec("prepared-read"))
        await env.prepare("mkdir -p /logs/verifier && echo ready > /logs/verifier/state", what="setup")
        data = await env.read_file("/logs/verifier/state")
        await env.close()
        return data

    assert with_provider(body) == b"ready\n"
