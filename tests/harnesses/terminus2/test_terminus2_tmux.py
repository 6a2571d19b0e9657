"""tmux control through ``env.exec`` in the real local environment (FORMATS.md D3)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentcompass.errors import DependencyError
from agentcompass.harnesses.terminus2.tmux import (TmuxSession, cap_bytes, is_key_name, send_keys_commands,
                                                  split_keystrokes, tmux_argument)
from agentcompass.interfaces import EnvSpec

requires_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")


def tmux_servers(socket: str) -> bool:
    """True when a tmux server answers on ``-L socket``."""
    return subprocess.run(["tmux", "-L", socket, "list-sessions"], capture_output=True).returncode == 0


# ---------------------------------------------------------------- pure helpers

@pytest.mark.parametrize("text", ["é" * 9000, "€" * 7000, "😀" * 5000, "a" + "€" * 7000, "ab" + "😀" * 5000])
@pytest.mark.parametrize("limit", [100, 1001, 10_000])
def test_cap_bytes_cuts_on_utf8_boundaries(text, limit):
    out = cap_bytes(text, limit)
    head, note, tail = out.partition("\n[... output limited to")
    assert note, "the omitted-bytes note is missing"
    tail = tail.split("...]\n", 1)[1]
    assert "\ufffd" not in head + tail                     # no split character
    assert len(head.encode()) <= limit // 2 and len(tail.encode()) <= limit // 2
    assert len(head.encode()) > limit // 2 - 4 and len(tail.encode()) > limit // 2 - 4
    assert text.startswith(head) and text.endswith(tail)
    omitted = int(note.split("; ")[1].split()[0]) if "; " in note else int(out.split("; ")[1].split()[0])
    assert omitted == len(text.encode()) - len(head.encode()) - len(tail.encode())


def test_cap_bytes_leaves_short_text_alone():
    assert cap_bytes("héllo", 10) == "héllo"


@pytest.mark.parametrize("keys,expected", [
    ("ls -la\n", [("ls -la", False), ("Enter", True)]),
    ("C-c", [("C-c", True)]),
    ("C-d", [("C-d", True)]),
    ("Enter", [("Enter", True)]),
    ("M-x", [("M-x", True)]),
    ("Escape", [("Escape", True)]),
    ("Enter the dragon\n", [("Enter the dragon", False), ("Enter", True)]),
    ("echo C-c\n", [("echo C-c", False), ("Enter", True)]),
    ("a\n\nb", [("a", False), ("Enter", True), ("Enter", True), ("b", False)]),
    ("", []),
])
def test_split_keystrokes(keys, expected):
    assert split_keystrokes(keys) == expected


def test_key_name_recognition():
    assert all(is_key_name(k) for k in ["C-c", "C-M-a", "^D", "F5", "Up", "BSpace", "Tab", "M-Enter"])
    assert not any(is_key_name(k) for k in ["ls", "C-", "enter", "C-c\n", " C-c"])


# ---------------------------------------------------------------- a real tmux in the local env

async def _started(env, **kw) -> TmuxSession:
    session = TmuxSession(env, "t2test", workdir="/app", **kw)
    await session.start()
    await session.initial_screen()
    return session


async def _type(session: TmuxSession, keys: str, wait: float = 0.3, expect: str | None = None) -> str:
    """Send ``keys``, wait (until ``expect`` shows up in the scrollback, up to 15 s), return the observation."""
    await session.send_keys(keys)
    await asyncio.sleep(wait)
    deadline = asyncio.get_running_loop().time() + 15
    while expect is not None and expect not in await session.capture(full=True):
        if asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.1)
    return await session.incremental_output()


async def _read_when(env, path: str, done: bytes, timeout: float = 20) -> bytes:
    """The content of ``path`` once it ends with ``done`` (or whatever it holds after ``timeout``)."""
    deadline = asyncio.get_running_loop().time() + timeout
    data = b""
    while asyncio.get_running_loop().time() < deadline:
        try:
            data = await env.read_file(path)
        except FileNotFoundError:
            data = b""
        if data.endswith(done):
            break
        await asyncio.sleep(0.1)
    return data


@requires_tmux
def test_incremental_output_and_clear_fallback(in_local_env):
    async def scenario(env):
        session = await _started(env)
        try:
            first = await _type(session, "echo FIRST-$((6*7))\n", expect="FIRST-42")
            second = await _type(session, "echo SECOND-$((7*8))\n", expect="SECOND-56")
            cleared = await _type(session, "clear\n", 1.0)
            after = await _type(session, "echo THIRD\n", expect="\nTHIRD")
            return first, second, cleared, after
        finally:
            await session.stop()

    first, second, cleared, after = in_local_env(scenario)
    assert first.startswith("New Terminal Output:\n") and "FIRST-42" in first
    assert second.startswith("New Terminal Output:\n") and "SECOND-56" in second
    assert "FIRST-42" not in second                         # only what is new
    assert "echo SECOND" in second                          # the command line itself is shown
    assert cleared.startswith("Current Terminal Screen:\n")  # history cleared: fall back to the screen
    assert "SECOND-56" not in cleared
    assert after.startswith("New Terminal Output:\n") and "THIRD" in after


@requires_tmux
def test_output_cap_in_terminal(in_local_env):
    async def scenario(env):
        session = await _started(env, max_output_bytes=2000)
        try:
            return await _type(session, "for i in $(seq 1 400); do echo \"line $i é€😀\"; done\n",
                               expect="line 400 é€😀\n")
        finally:
            await session.stop()

    out = in_local_env(scenario)
    assert out.startswith("New Terminal Output:\n")
    body = out[len("New Terminal Output:\n"):]
    assert "output limited to 2000 bytes" in body
    assert len(body.encode()) < 2000 + 100
    assert "\ufffd" not in body
    assert "line 400 é€😀" in body                            # the tail is kept


@requires_tmux
def test_keys_are_sent_as_given(in_local_env):
    async def scenario(env):
        session = await _started(env)
        try:
            await _type(session, "sleep 30\n", 0.3)
            interrupted = await _type(session, "C-c", 0.3)
            status = await _type(session, "echo status=$?\n", expect="status=1")
            await _type(session, "cat > typed.txt\n", 0.3)
            await _type(session, "Enter here is text\n", 0.2)   # not a key name: typed literally
            await _type(session, "C-d", 0.3)
            content = await _read_when(env, "/app/typed.txt", b"text\n")
            return interrupted, status, content
        finally:
            await session.stop()

    _interrupted, status, content = in_local_env(scenario)
    assert "status=130" in status
    assert content == b"Enter here is text\n"


def test_trailing_semicolons_are_escaped_for_tmux():
    assert tmux_argument("cd /app;") == "cd /app\\;"
    assert tmux_argument("find . -exec rm {} \\;") == "find . -exec rm {} \\\\;"
    assert tmux_argument("a; b") == "a; b"


def test_long_keystrokes_are_split_below_the_tmux_message_limit():
    text = "é" * 10_000 + "\n"
    batches = send_keys_commands("s", text)
    assert len(batches) >= 3
    for args in batches:
        assert sum(len(a.encode()) + 1 for a in args) < 16_000
    typed = "".join(args[i + 1] for args in batches for i, a in enumerate(args) if a == "--")
    assert typed == "é" * 10_000 and batches[-1][-1] == "Enter"


@requires_tmux
def test_special_text_arrives_verbatim(in_local_env):
    lines = ["echo a;", ";", "find . -exec echo {} \\;", "{ x; }", "-n", "$HOME ~ # 'q' \"dq\"", "C-c "]
    long_text = "x" * 20_000 + "€" * 3000        # > 16 KiB: several tmux commands; typed into readline

    async def scenario(env):
        session = await _started(env)
        try:
            await _type(session, "cat > typed.txt\n", 0.3)
            await _type(session, "\n".join(lines) + "\n", 0.5)
            await _type(session, "C-d", 0.3)
            await _type(session, f"printf %s '{long_text}' > long.txt\n", 2.0)
            typed = await _read_when(env, "/app/typed.txt", b"C-c \n")
            return [typed.decode(), (await _read_when(env, "/app/long.txt", "€€".encode())).decode()]
        finally:
            await session.stop()

    typed, long_file = in_local_env(scenario)
    assert typed == "\n".join(lines) + "\n"
    assert long_file == long_text


@requires_tmux
def test_session_is_isolated_logged_and_killed(in_local_env):
    async def scenario(env):
        a = await _started(env)
        b = await _started(env)          # same session name, separate tmux servers
        try:
            await _type(a, "echo from-a\n", expect="\nfrom-a")
            out_b = await _type(b, "echo from-b\n", expect="\nfrom-b")
            alive = (await a.is_alive(), await b.is_alive())
            pane_log = Path(env.path("/logs/agent/terminus_2.pane")).read_bytes()
            cwd = await _type(a, "pwd\n", expect="/app\n")
        finally:
            await a.stop()
            await b.stop()
        return a.socket, b.socket, out_b, alive, pane_log, cwd, await a.is_alive()

    sock_a, sock_b, out_b, alive, pane_log, cwd, alive_after = in_local_env(scenario)
    assert sock_a != sock_b
    assert b"from-b" in pane_log                                  # pipe-pane records the session
    assert "from-a" not in out_b
    assert alive == (True, True)
    assert alive_after is False
    assert not tmux_servers(sock_a) and not tmux_servers(sock_b)
    assert any(line.endswith("/app") and "pwd" not in line for line in cwd.splitlines())   # the workdir


@requires_tmux
def test_exit_ends_the_session(in_local_env):
    async def scenario(env):
        session = await _started(env)
        await session.send_keys("exit\n")
        await asyncio.sleep(0.5)
        return await session.is_alive()

    assert in_local_env(scenario) is False


def test_missing_tmux_is_a_clear_error(tmp_path, run):
    from agentcompass.environments.local import LocalConfig, LocalProvider

    bindir = tmp_path / "bin"                       # a PATH holding bash but no tmux
    bindir.mkdir()
    os.symlink(shutil.which("bash"), bindir / "bash")
    provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws"), env={"PATH": str(bindir)}))

    async def scenario():
        env = await provider.open(EnvSpec(task_id="no-tmux"))
        try:
            with pytest.raises(DependencyError) as info:
                await TmuxSession(env, auto_install=True).start()
            return str(info.value)
        finally:
            await env.close()

    message = run(scenario())
    assert "tmux" in message and "not installed" in message and "local environment" in message
