"""tmux control through ``env.exec`` in the real local environment, as Harbor's TmuxSession does it."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from t2_support import harbor_prompts, lead

from agentcompass.errors import DependencyError
from agentcompass.harnesses.terminus2.tmux import TmuxSession, find_new_content, limit_output, needs_paste
from agentcompass.interfaces import EnvSpec

requires_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed on this host")


def tmux_servers(socket: str) -> bool:
    """True when a tmux server answers on ``-L socket``."""
    return subprocess.run(["tmux", "-L", socket, "list-sessions"], capture_output=True, check=False).returncode == 0


# ---------------------------------------------------------------- pure helpers


@pytest.mark.parametrize("text", ["é" * 9000, "€" * 7000, "😀" * 5000, "a" + "€" * 7000, "ab" + "😀" * 5000])
@pytest.mark.parametrize("limit", [100, 1001, 10_000])
def test_limit_output_keeps_whole_characters_at_both_ends(text, limit):
    p = harbor_prompts()
    out = limit_output(text, limit, p)
    first, second, third = [x for x in p["output_limited"].parts if isinstance(x, str)]  # around the values
    head, rest = out.split(first, 1)
    shown_limit, rest = rest.split(second, 1)
    omitted, tail = rest.split(third, 1)
    assert "\ufffd" not in head + tail and int(shown_limit) == limit
    assert len(head.encode()) <= limit // 2 and len(tail.encode()) <= limit // 2
    assert len(head.encode()) > limit // 2 - 4 and len(tail.encode()) > limit // 2 - 4
    assert text.startswith(head) and text.endswith(tail)
    assert int(omitted) == len(text.encode()) - len(head.encode()) - len(tail.encode())


def test_limit_output_leaves_short_text_alone():
    assert limit_output("héllo", 10, harbor_prompts()) == "héllo"


def test_new_content_follows_harbors_offset_rule():
    assert find_new_content(None, "a\nb\n") == "a\nb\n"
    assert find_new_content("$ ls\nx\n$", "$ ls\nx\n$ echo\ny\n$") == "\n$ echo\ny\n$"
    assert find_new_content("one line", "one line and more") == "one line and more"
    assert find_new_content("gone\n$", "other\n$") is None


def test_paste_threshold_is_harbors():
    assert not needs_paste("x" * 15_000, "terminus-2")
    assert needs_paste("x" * 15_990, "terminus-2")
    assert needs_paste("'" * 4000, "terminus-2")  # quoting makes it longer than 16,000 bytes


# ---------------------------------------------------------------- a real tmux in the local env


async def _started(env, record: bool = False) -> TmuxSession:
    session = TmuxSession(env, harbor_prompts(), "t2test", workdir="/app", record=record)
    await session.start()
    await session.wait_ready()
    await session.incremental_output()
    return session


async def _type(session: TmuxSession, keys: str, wait: float = 0.3, expect: str | None = None) -> str:
    """Send ``keys``, wait (until ``expect`` shows up in the scrollback, up to 15 s), return the observation."""
    await session.send_keys([keys], wait)
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
    assert first.startswith(lead("new_output")) and "FIRST-42" in first
    assert second.startswith(lead("new_output")) and "SECOND-56" in second
    assert "FIRST-42" not in second and "echo SECOND" in second  # only what is new, from the command line on
    assert cleared.startswith(lead("current_screen")) and "SECOND-56" not in cleared
    assert after.startswith(lead("new_output")) and "THIRD" in after


@requires_tmux
def test_each_keystrokes_string_is_one_tmux_argument(in_local_env):
    async def scenario(env):
        session = await _started(env)
        try:
            await _type(session, "sleep 30\n", 0.3)
            await _type(session, "C-c", 0.3)  # a whole key name: that key
            status = await _type(session, "echo status=$?\n", expect="status=1")
            await _type(session, "cat > typed.txt\n", 0.3)
            await _type(session, "Enter here is text\n", 0.2)  # not a key name: typed literally
            await _type(session, "echo a;", 0.2)  # tmux reads the trailing ';' as a separator
            await _type(session, "\n", 0.2)
            await _type(session, "C-d", 0.3)
            return status, await _read_when(env, "/app/typed.txt", b"echo a\n")
        finally:
            await session.stop()

    status, content = in_local_env(scenario)
    assert "status=130" in status
    assert content == b"Enter here is text\necho a\n"


@requires_tmux
def test_long_keystrokes_are_pasted_verbatim(in_local_env):
    long_text = "x" * 20_000 + "€" * 3000  # over one send-keys command: a paste buffer

    async def scenario(env):
        session = await _started(env)
        try:
            await _type(session, f"printf %s '{long_text}' > long.txt\n", 2.0)
            return (await _read_when(env, "/app/long.txt", "€€".encode())).decode()
        finally:
            await session.stop()

    assert in_local_env(scenario) == long_text


@requires_tmux
def test_the_pane_keeps_tmuxs_default_history_as_in_harbor(in_local_env):
    async def scenario(env):
        session = await _started(env)
        try:
            shown = await env.exec(
                ["tmux", "-L", session.socket, "display", "-p", "-t", session.name, "#{history_limit}"]
            )
            later = await env.exec(["tmux", "-L", session.socket, "show-options", "-g", "history-limit"])
            return shown.stdout.strip(), later.stdout.strip()
        finally:
            await session.stop()

    pane, global_option = in_local_env(scenario)
    # the pane: tmux's default, as in Harbor; the option set after it: our bound (Harbor: 10000000)
    assert pane == "2000" and global_option.split()[-1] == "10000"


@requires_tmux
def test_recording_start_up_leaves_a_cleared_screen(in_local_env):
    async def scenario(env):
        session = await _started(env, record=True)
        try:
            # the clear is typed without a wait (as Harbor types it): on a loaded machine tmux may still be
            # drawing it, so poll (up to 15 s) for the screen to settle before reading it
            deadline = asyncio.get_running_loop().time() + 15
            screen = await session.capture()
            while "asciinema" in screen and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.1)
                screen = await session.capture()
            return screen
        finally:
            await session.stop()

    screen = in_local_env(scenario)
    assert "asciinema" not in screen and len([line for line in screen.splitlines() if line.strip()]) == 1


@requires_tmux
def test_session_is_isolated_logged_and_killed(in_local_env):
    async def scenario(env):
        a = await _started(env)
        b = await _started(env)  # same session name, separate tmux servers
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
    assert b"from-b" in pane_log  # pipe-pane records the session
    assert "from-a" not in out_b
    assert alive == (True, True) and alive_after is False
    assert not tmux_servers(sock_a) and not tmux_servers(sock_b)
    assert any(line.endswith("/app") and "pwd" not in line for line in cwd.splitlines())  # the workdir


@requires_tmux
def test_exit_ends_the_session(in_local_env):
    async def scenario(env):
        session = await _started(env)
        await session.send_keys(["exit\n"], 0.5)
        return await session.is_alive()

    assert in_local_env(scenario) is False


def test_missing_tmux_is_a_clear_error(tmp_path, run):
    from agentcompass.environments.local import LocalConfig, LocalProvider

    bindir = tmp_path / "bin"  # a PATH holding bash but no tmux
    bindir.mkdir()
    os.symlink(shutil.which("bash"), bindir / "bash")
    provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws"), env={"PATH": str(bindir)}))

    async def scenario():
        env = await provider.open(EnvSpec(task_id="no-tmux"))
        try:
            with pytest.raises(DependencyError) as info:
                await TmuxSession(env, harbor_prompts(), auto_install=True).start()
            return str(info.value)
        finally:
            await env.close()

    message = run(scenario())
    assert "tmux" in message and "not installed" in message and "local environment" in message
