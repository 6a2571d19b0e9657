"""The environment contract (:class:`agentcompass.interfaces.Environment`), as tests an implementation inherits.

Subclass :class:`FileEnvironmentSuite` (an environment without commands, such as ``memory``) or
:class:`CommandEnvironmentSuite` (one that runs commands), set ``ENVIRONMENT`` (its id in ``conf/environment/``)
and, where needed, ``provider_params(tmp_dir)`` (config keys over the file); override :meth:`EnvironmentSuite.spec`
to add labels. One environment is opened per class and reused by the tests that
may share it; the tests that close or reconfigure one open their own.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentcompass.errors import PathEscapeError, SandboxError
from agentcompass.interfaces import EnvironmentProvider, EnvSpec

from ._common import AsyncClass, Loop, build_from_conf, check_capabilities

SPEC_ENV = {"AC_SPEC_VAR": "spec", "AC_SHARED": "spec"}


def tree(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``root``: ("dir",), ("link", target) or ("file", bytes, executable)."""
    out: dict[str, tuple[Any, ...]] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_dir():
            out[rel] = ("dir",)
        else:
            out[rel] = ("file", p.read_bytes(), os.access(p, os.X_OK))
    return out


def make_tree(root: Path, symlinks: bool) -> Path:
    """Nested directories, an empty one, text, binary, an executable script and (optionally) a relative link."""
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "sub" / "bin.dat").write_bytes(bytes(range(256)) * 64)
    script = root / "sub" / "deeper" / "run.sh"
    script.write_text("#!/bin/sh\necho ran\n")
    script.chmod(0o755)
    if symlinks:
        (root / "alias").symlink_to("sub/bin.dat")
    return root


class EnvironmentSuite(AsyncClass):
    """Files, paths, confinement and the lifecycle: what every environment must do."""

    ENVIRONMENT: ClassVar[str] = ""  # the id in conf/environment/
    SYMLINKS: ClassVar[bool] = True  # the environment has symbolic links (upload and download keep them)
    WORKDIR: ClassVar[str] = "/app"
    KILL_WITHIN_S: ClassVar[float] = 8.0  # a timed-out command returns within this many seconds
    BUSY_COMMANDS: ClassVar[int] = 10  # quick commands run while another thread keeps the interpreter busy
    BUSY_SWITCH_S: ClassVar[float] = 0.1  # the interpreter's thread switch interval meanwhile

    def provider_params(self, tmp_dir: Path) -> dict[str, object]:
        """Config keys merged over ``conf/environment/<ENVIRONMENT>.yaml``."""
        return {}

    def make_provider(self, tmp_dir: Path) -> EnvironmentProvider:
        """The provider under test, built from its config file as a request builds it."""
        return build_from_conf("environment", self.ENVIRONMENT, tmp_dir, **self.provider_params(tmp_dir))

    def spec(self, task_id: str = "conformance", **fields: Any) -> EnvSpec:
        """The EnvSpec the suite opens environments with (override to add labels)."""
        fields.setdefault("workdir", self.WORKDIR)
        return EnvSpec(task_id=task_id, benchmark="conformance", **fields)

    # class-scoped fixtures are classmethods (pytest 9.1 deprecates them as instance methods); the hooks they
    # call stay instance methods, called on a fresh instance
    @pytest.fixture(scope="class")
    @classmethod
    def provider(cls, aio: Loop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvironmentProvider]:
        provider = cls().make_provider(tmp_path_factory.mktemp("provider"))
        yield provider
        aio.run(provider.aclose())

    @pytest.fixture(scope="class")
    @classmethod
    def env(cls, aio: Loop, provider: EnvironmentProvider) -> Iterator[Any]:
        env = aio.run(provider.open(cls().spec(env=dict(SPEC_ENV))))
        yield env
        aio.run(env.close())

    # ------------------------------------------------------------------ identity and paths
    def test_describe_names_the_provider(self, env: Any, provider: EnvironmentProvider) -> None:
        info = env.describe()
        assert isinstance(info, dict) and info.get("provider") == provider.name, info
        assert isinstance(env.id, str) and env.id
        check_capabilities(env, "environment")
        check_capabilities(provider, "provider")

    def test_paths_are_environment_paths(self, env: Any) -> None:
        assert env.workdir == self.WORKDIR
        mapped = env.path(f"{self.WORKDIR}/x")
        assert env.path(mapped) == mapped  # mapping twice is mapping once

    # ------------------------------------------------------------------ files
    def test_text_and_binary_files_round_trip(self, aio: Loop, env: Any) -> None:
        blob = bytes(range(256)) * 16
        aio.run(env.write_file(f"{self.WORKDIR}/text.txt", "héllo\nwörld\n"))
        aio.run(env.write_file(f"{self.WORKDIR}/blob.bin", blob))
        assert aio.run(env.read_file(f"{self.WORKDIR}/text.txt")) == "héllo\nwörld\n".encode()
        assert aio.run(env.read_file(f"{self.WORKDIR}/blob.bin")) == blob
        aio.run(env.write_file(f"{self.WORKDIR}/text.txt", b""))  # replaced, now empty
        assert aio.run(env.read_file(f"{self.WORKDIR}/text.txt")) == b""

    def test_parents_are_created_and_relative_paths_are_under_the_workdir(self, aio: Loop, env: Any) -> None:
        aio.run(env.write_file("rel/deep/x.txt", "x"))
        assert aio.run(env.read_file(f"{self.WORKDIR}/rel/deep/x.txt")) == b"x"
        aio.run(env.write_file("/opt/ac-conformance/new/dir/f", "y"))
        assert aio.run(env.read_file("/opt/ac-conformance/new/dir/f")) == b"y"

    def test_write_file_mode_is_kept(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        aio.run(env.write_file(f"{self.WORKDIR}/tool.sh", "#!/bin/sh\necho tool\n", mode=0o755))
        aio.run(env.write_file(f"{self.WORKDIR}/plain.txt", "plain"))
        aio.run(env.download(f"{self.WORKDIR}/tool.sh", tmp_path / "tool.sh"))
        aio.run(env.download(f"{self.WORKDIR}/plain.txt", tmp_path / "plain.txt"))
        assert os.access(tmp_path / "tool.sh", os.X_OK) and (tmp_path / "tool.sh").read_text().endswith("tool\n")
        assert not os.access(tmp_path / "plain.txt", os.X_OK)

    def test_missing_files_and_directories_are_typed_errors(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError):
            aio.run(env.read_file(f"{self.WORKDIR}/no-such-file"))
        with pytest.raises(FileNotFoundError):
            aio.run(env.download(f"{self.WORKDIR}/no-such-dir", tmp_path / "never"))
        assert not (tmp_path / "never").exists()
        aio.run(env.write_file(f"{self.WORKDIR}/adir/inside.txt", "i"))
        with pytest.raises(IsADirectoryError):
            aio.run(env.read_file(f"{self.WORKDIR}/adir"))

    def test_upload_and_download_of_a_directory_round_trip(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        src = make_tree(tmp_path / "src", self.SYMLINKS)
        aio.run(env.upload(src, "/data/ac-in"))
        assert aio.run(env.read_file("/data/ac-in/sub/bin.dat")) == (src / "sub" / "bin.dat").read_bytes()
        aio.run(env.download("/data/ac-in", tmp_path / "back"))
        assert tree(tmp_path / "back") == tree(src)
        aio.run(env.upload(src / "a.txt", "single/a-copy.txt"))  # a file, to a relative path
        assert aio.run(env.read_file(f"{self.WORKDIR}/single/a-copy.txt")) == b"alpha\n"
        aio.run(env.download(f"{self.WORKDIR}/single/a-copy.txt", tmp_path / "one" / "file.txt"))
        assert (tmp_path / "one" / "file.txt").read_text() == "alpha\n"

    def test_paths_cannot_leave_the_environment(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        """``..`` past the root is refused, or stays inside the environment; the host is never touched."""
        name = f"ac-conformance-{uuid.uuid4().hex}"
        climbing = f"{self.WORKDIR}/../../../../../tmp/{name}"
        (tmp_path / "f.txt").write_text("uploaded")
        for write in (lambda: env.write_file(climbing, "written"), lambda: env.upload(tmp_path / "f.txt", climbing)):
            try:
                aio.run(write())
            except PathEscapeError:
                continue
            assert aio.run(env.read_file(f"/tmp/{name}")) in (b"written", b"uploaded")
        assert not Path(f"/tmp/{name}").exists(), "a write climbed out of the environment onto the host"

    # ------------------------------------------------------------------ lifecycle
    def test_close_is_idempotent_and_final(self, aio: Loop, provider: EnvironmentProvider) -> None:
        env = aio.run(provider.open(self.spec("conformance-close")))
        aio.run(env.write_file(f"{self.WORKDIR}/f.txt", "x"))
        aio.run(env.close())
        aio.run(env.close())
        with pytest.raises(SandboxError):
            aio.run(env.read_file(f"{self.WORKDIR}/f.txt"))
        with pytest.raises(SandboxError):
            aio.run(env.write_file(f"{self.WORKDIR}/g.txt", "y"))
        with pytest.raises(SandboxError):
            aio.run(env.exec("true"))


class FileEnvironmentSuite(EnvironmentSuite):
    """An environment that runs no commands: :meth:`exec` is refused with a SandboxError that is not retried."""

    def test_commands_are_refused(self, aio: Loop, env: Any) -> None:
        with pytest.raises(SandboxError) as info:
            aio.run(env.exec("echo hi"))
        assert info.value.retryable is False


ALIVE = (
    "pid=$(cat {f}); if kill -0 \"$pid\" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' /proc/$pid/status; "
    "then echo alive; else echo dead; fi"
)


class CommandEnvironmentSuite(EnvironmentSuite):
    """Commands: exit codes, streams, argv, cwd, variables, timeouts, cancellation, concurrency."""

    def _dead(self, aio: Loop, env: Any, pidfile: str, seconds: float = 10.0) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if aio.run(env.exec(ALIVE.format(f=pidfile), timeout=30)).stdout.strip() == "dead":
                return True
            time.sleep(0.1)
        return False

    def test_exit_codes_and_separate_streams(self, aio: Loop, env: Any) -> None:
        res = aio.run(env.exec("echo out; echo err >&2; exit 7"))
        assert (res.exit_code, res.stdout, res.stderr, res.timed_out) == (7, "out\n", "err\n", False)
        assert res.duration_s > 0 and res.output == "out\nerr\n"
        assert aio.run(env.exec("true")).exit_code == 0

    def test_an_argv_is_not_parsed_by_a_shell(self, aio: Loop, env: Any) -> None:
        res = aio.run(env.exec(["printf", "%s|", "a b; c", "$HOME", "*"]))
        assert (res.exit_code, res.stdout) == (0, "a b; c|$HOME|*|")

    def test_a_missing_binary_exits_127(self, aio: Loop, env: Any) -> None:
        assert aio.run(env.exec(["no-such-binary-ac-conformance"])).exit_code == 127
        assert aio.run(env.exec("no-such-binary-ac-conformance")).exit_code == 127

    def test_cwd_default_explicit_and_missing(self, aio: Loop, provider: EnvironmentProvider) -> None:
        env = aio.run(provider.open(self.spec("conformance-cwd", workdir="/srv/work")))
        try:
            assert aio.run(env.exec("pwd")).stdout.strip() == env.path("/srv/work")
            assert aio.run(env.exec(["mkdir", "-p", env.path("/data/sub")])).exit_code == 0
            assert aio.run(env.exec("pwd", cwd="/data/sub")).stdout.strip() == env.path("/data/sub")
            missing = aio.run(env.exec("pwd", cwd="/nowhere/at/all"))
            assert missing.exit_code != 0 and "does not exist" in missing.stderr, missing
        finally:
            aio.run(env.close())

    def test_variables_of_the_spec_and_of_the_call(self, aio: Loop, env: Any) -> None:
        res = aio.run(env.exec('echo "$AC_SPEC_VAR $AC_SHARED $AC_CALL"', env={"AC_SHARED": "call", "AC_CALL": "c"}))
        assert res.stdout == "spec call c\n", res
        again = aio.run(env.exec('echo "${AC_CALL:-unset}"'))
        assert again.stdout == "unset\n", again  # per call only

    def test_a_timeout_returns_the_output_so_far_and_kills_the_tree(self, aio: Loop, env: Any) -> None:
        start = time.monotonic()
        res = aio.run(env.exec("echo before; sleep 60 & echo $! > bg.pid; sleep 60; echo never", timeout=1))
        assert time.monotonic() - start < self.KILL_WITHIN_S
        assert res.timed_out and res.exit_code == -1 and res.stdout == "before\n", res
        assert self._dead(aio, env, "bg.pid"), "a background child of a timed-out command survived"
        assert aio.run(env.exec("echo still usable")).stdout == "still usable\n"

    def test_a_cancelled_command_is_killed_with_its_tree(self, aio: Loop, env: Any) -> None:
        async def cancel() -> None:
            task = asyncio.ensure_future(env.exec("sleep 60 & echo $! > cancelled.pid; wait"))
            for _ in range(300):
                done = await env.exec("test -s cancelled.pid")
                if done.exit_code == 0:
                    break
                await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        aio.run(cancel())
        assert self._dead(aio, env, "cancelled.pid"), "the process tree of a cancelled command survived"

    def test_concurrent_commands_keep_their_outputs_apart(self, aio: Loop, env: Any) -> None:
        async def many() -> list[Any]:
            return await asyncio.gather(
                *(env.exec(f"for i in $(seq 1 300); do echo {n}-$i; done; echo E{n} >&2; exit {n}") for n in range(8))
            )

        for n, res in enumerate(aio.run(many())):
            assert res.stdout == "".join(f"{n}-{i}\n" for i in range(1, 301)) and res.stderr == f"E{n}\n"
            assert res.exit_code == n

    def test_quick_commands_lose_no_output_while_another_thread_is_busy(self, aio: Loop, env: Any) -> None:
        """A busy thread delays reading each reply, so the answer to a command and its output arrive together."""
        stop, old = threading.Event(), sys.getswitchinterval()

        def busy() -> None:
            while not stop.is_set():
                pass

        sys.setswitchinterval(self.BUSY_SWITCH_S)
        thread = threading.Thread(target=busy, daemon=True)
        thread.start()
        try:
            outs = [aio.run(env.exec(["echo", f"line {i}"])).stdout for i in range(self.BUSY_COMMANDS)]
        finally:
            stop.set()
            thread.join()
            sys.setswitchinterval(old)
        lost = [i for i, text in enumerate(outs) if text != f"line {i}\n"]
        assert not lost, f"{len(lost)} of {len(outs)} commands lost their output: {[outs[i] for i in lost[:3]]}"

    def test_undecodable_output_is_replaced(self, aio: Loop, env: Any) -> None:
        res = aio.run(env.exec("printf 'ok\\377\\376!'; printf '\\377' >&2"))
        assert (res.stdout, res.stderr) == ("ok\ufffd\ufffd!", "\ufffd")

    def test_written_files_are_seen_by_commands(self, aio: Loop, env: Any) -> None:
        aio.run(env.write_file(f"{self.WORKDIR}/cmd/tool.sh", "#!/bin/sh\necho tool\n", mode=0o755))
        res = aio.run(env.exec("./cmd/tool.sh && stat -c %a cmd/tool.sh"))
        assert res.stdout == "tool\n755\n", res
        for form in (f"{self.WORKDIR}/cmd/tool.sh", "cmd/tool.sh"):  # path() output is what commands use
            assert aio.run(env.exec(["cat", env.path(form)], cwd="/")).stdout.endswith("echo tool\n"), form
        assert aio.run(env.exec("printf made > cmd/made.txt")).exit_code == 0
        assert aio.run(env.read_file(f"{self.WORKDIR}/cmd/made.txt")) == b"made"

    def test_uploaded_scripts_run(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        src = make_tree(tmp_path / "src", self.SYMLINKS)
        aio.run(env.upload(src, "/data/ac-run"))
        assert aio.run(env.exec(env.path("/data/ac-run/sub/deeper/run.sh"))).stdout == "ran\n"

    def test_a_download_never_follows_a_link_out_of_the_tree(self, aio: Loop, env: Any, tmp_path: Path) -> None:
        made = aio.run(env.exec("mkdir -p out && echo ok > out/a && ln -sfn /etc/passwd out/pw"))
        assert made.exit_code == 0, made
        with pytest.raises(PathEscapeError, match="pw"):
            aio.run(env.download(f"{self.WORKDIR}/out", tmp_path / "out"))
        assert not (tmp_path / "out").exists(), "a refused download wrote files"
