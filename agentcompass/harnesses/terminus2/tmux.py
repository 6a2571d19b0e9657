"""A tmux session inside the environment, driven only through ``env.exec`` (FORMATS.md D3).

The session runs on its own tmux server (``tmux -L <socket name>``), so attempts sharing one host (the
``local`` environment) never see each other's sessions; :meth:`TmuxSession.stop` kills that server.
Keystrokes are sent without blocking: a whole-string tmux key name (``C-c``, ``Enter``, ``Escape``...) is
sent as that key, anything else literally (``send-keys -l``) with each newline sent as ``Enter``.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import uuid
from typing import Any

from agentcompass.errors import DependencyError, SandboxError
from agentcompass.interfaces import Environment, ExecResult

PANE_LOG = "/logs/agent/terminus_2.pane"
_NAMED_KEYS = (
    "Enter|Escape|Tab|BTab|BSpace|Space|Up|Down|Left|Right|Home|End|IC|Insert|DC|Delete|PageUp|PgUp|PPage|"
    "PageDown|PgDn|NPage|F[1-9]|F1[0-2]|KP[0-9]|KPEnter"
)
_KEY_RE = re.compile(rf"(?:(?:[CMS]-)+(?:{_NAMED_KEYS}|[\x21-\x7e])|\^[A-Za-z@\[\]\\^_?]|(?:{_NAMED_KEYS}))")
_INSTALL = (
    "if command -v apt-get >/dev/null 2>&1; then export DEBIAN_FRONTEND=noninteractive; "
    "apt-get update -qq && apt-get install -y -qq tmux; "
    "elif command -v apk >/dev/null 2>&1; then apk add --no-cache tmux; "
    "elif command -v dnf >/dev/null 2>&1; then dnf install -y tmux; "
    "elif command -v yum >/dev/null 2>&1; then yum install -y tmux; "
    "else echo 'no known package manager (apt-get, apk, dnf, yum)' >&2; exit 3; fi"
)


def is_key_name(keys: str) -> bool:
    """True when ``keys`` as a whole is a tmux key name such as ``C-c``, ``M-x``, ``Enter`` or ``^D``."""
    return bool(_KEY_RE.fullmatch(keys))


def split_keystrokes(keys: str, max_chunk_bytes: int = 4000) -> list[tuple[str, bool]]:
    """``[(chunk, is_key)]``: literal text chunks (at most ``max_chunk_bytes`` each) and ``Enter`` for newlines."""
    if is_key_name(keys):
        return [(keys, True)]
    parts: list[tuple[str, bool]] = []
    for i, line in enumerate(keys.split("\n")):
        if i:
            parts.append(("Enter", True))
        parts.extend((chunk, False) for chunk in _utf8_chunks(line, max_chunk_bytes))
    return parts


def _utf8_chunks(text: str, limit: int) -> list[str]:
    chunks: list[str] = []
    current, size = [], 0
    for ch in text:
        n = len(ch.encode("utf-8", errors="replace"))
        if size + n > limit and current:
            chunks.append("".join(current))
            current, size = [], 0
        current.append(ch)
        size += n
    if current:
        chunks.append("".join(current))
    return chunks


def tmux_argument(text: str) -> str:
    """``text`` as a tmux command-line argument: tmux reads a trailing ``;`` as a command separator (and a
    trailing ``\\;`` as a literal ``;``), so a final ``;`` gets a backslash in front of it."""
    return text[:-1] + "\\;" if text.endswith(";") else text


def send_keys_commands(target: str, keys: str, budget: int = 8000) -> list[list[str]]:
    """tmux argument lists (commands joined by ``;``) typing ``keys``, each below tmux's message size limit."""
    batches: list[list[str]] = []
    current: list[str] = []
    size = 0
    for chunk, is_key in split_keystrokes(keys):
        args = ["send-keys", "-t", target] + ([chunk] if is_key else ["-l", "--", tmux_argument(chunk)])
        n = sum(len(a.encode("utf-8", errors="replace")) + 1 for a in args)
        if current and size + n > budget:
            batches.append(current)
            current, size = [], 0
        current += ([";"] if current else []) + args
        size += n + 2
    if current:
        batches.append(current)
    return batches


def cap_bytes(text: str, limit: int) -> str:
    """``text`` capped at ``limit`` UTF-8 bytes: the first and last halves, cut on character boundaries."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    half = limit // 2
    head_end = half
    while head_end > 0 and (data[head_end] & 0xC0) == 0x80:    # do not split a multi-byte character
        head_end -= 1
    tail_start = len(data) - half
    while tail_start < len(data) and (data[tail_start] & 0xC0) == 0x80:
        tail_start += 1
    omitted = tail_start - head_end
    return (data[:head_end].decode("utf-8", errors="replace")
            + f"\n[... output limited to {limit} bytes; {omitted} interior bytes omitted ...]\n"
            + data[tail_start:].decode("utf-8", errors="replace"))


class TmuxSession:
    """One ``bash --login`` in a detached tmux session on a private tmux server inside ``env``."""

    def __init__(self, env: Environment, name: str = "terminus-2", *, workdir: str = "/app",
                 width: int = 160, height: int = 40, history_limit: int = 10_000_000,
                 max_output_bytes: int = 10_000, auto_install: bool = False, image: str | None = None,
                 logger: Any = None) -> None:
        self.env, self.name, self.workdir = env, name, workdir
        self.width, self.height, self.history_limit = width, height, history_limit
        self.max_output_bytes, self.auto_install, self.image = max_output_bytes, auto_install, image
        self.logger = logger
        self.socket = f"agentcompass-{uuid.uuid4().hex[:12]}"
        self._previous: str | None = None
        self.started = False

    # ------------------------------------------------------------------ plumbing
    def _tmux(self, *args: str) -> list[str]:
        return ["tmux", "-L", self.socket, *args]

    async def _run(self, argv: list[str] | str, timeout: float = 30.0) -> ExecResult:
        return await self.env.exec(argv, timeout=timeout, env={"TERM": "xterm-256color", "TMUX": ""})

    def _where(self) -> str:
        desc: dict[str, Any] = {}
        try:
            desc = dict(self.env.describe())
        except Exception:                                              # describe is best-effort here
            pass
        image = self.image or desc.get("image")
        if self.env.path("/") != "/":
            return f"the local environment (host, workspace {desc.get('workspace', self.env.id)})"
        return f"image {image!r}" if image else f"environment {self.env.id!r}"

    async def ensure_tmux(self) -> None:
        """Check tmux is installed; install it (auto_install) or raise DependencyError naming the image."""
        if (await self._run("command -v tmux")).exit_code == 0:
            return
        where = self._where()
        local = self.env.path("/") != "/"
        if not self.auto_install or local:
            hint = ("install tmux on this host (e.g. apt-get install -y tmux)" if local else
                    "add tmux to the image (e.g. RUN apt-get install -y tmux) or set auto_install_dependencies=true")
            raise DependencyError(f"terminus2 needs tmux, which is not installed in {where}; {hint}")
        result = await self._run(_INSTALL, timeout=600)
        if result.exit_code != 0 or (await self._run("command -v tmux")).exit_code != 0:
            tail = " | ".join(result.output.strip().splitlines()[-3:]) or "tmux is still not on PATH"
            raise DependencyError(f"terminus2: installing tmux in {where} failed (exit {result.exit_code}): {tail}")

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        await self.ensure_tmux()
        log_path = self.env.path(PANE_LOG)
        workdir = self.env.path(self.workdir)
        setup = await self._run(f"mkdir -p {shlex.quote(log_path.rsplit('/', 1)[0])} {shlex.quote(workdir)} && "
                                "{ command -v bash >/dev/null 2>&1 && echo 'bash --login' || echo 'sh -l'; }")
        if setup.exit_code != 0:
            raise SandboxError(f"terminus2: cannot create {PANE_LOG} / {self.workdir}: {setup.output.strip()}")
        argv = self._tmux("start-server", ";", "set-option", "-g", "history-limit", str(self.history_limit),
                          ";", "new-session", "-x", str(self.width), "-y", str(self.height), "-d",
                          "-s", self.name, "-c", workdir, setup.stdout.strip() or "bash --login",
                          ";", "pipe-pane", "-t", self.name, f"cat > {shlex.quote(log_path)}")
        cmd = "export TERM=xterm-256color SHELL=/bin/bash; unset TMUX; " + shlex.join(argv)
        result = await self._run(cmd)
        if result.exit_code != 0:
            raise SandboxError(f"terminus2: tmux new-session failed (exit {result.exit_code}): "
                               f"{result.output.strip()[:500]}")
        self.started = True

    async def stop(self) -> None:
        """Kill this session's tmux server (best effort, idempotent)."""
        if not self.started:
            return
        self.started = False
        try:
            await self._run(self._tmux("kill-server"), timeout=15)
        except Exception as exc:                                         # the env may already be gone
            if self.logger:
                self.logger.debug("terminus2: tmux kill-server failed: %s", exc)

    async def is_alive(self) -> bool:
        return (await self._run(self._tmux("has-session", "-t", self.name))).exit_code == 0

    # ------------------------------------------------------------------ keys
    async def send_keys(self, keys: str) -> None:
        """Send ``keys`` as given, without waiting for anything to run."""
        for args in send_keys_commands(self.name, keys):
            result = await self._run(self._tmux(*args))
            if result.exit_code != 0:
                raise SandboxError(f"terminus2: tmux send-keys failed (exit {result.exit_code}): "
                                   f"{result.output.strip()[:300]}")

    # ------------------------------------------------------------------ screen
    async def capture(self, full: bool = False) -> str:
        args = ["capture-pane", "-p", "-t", self.name] + (["-S", "-"] if full else [])
        result = await self._run(self._tmux(*args))
        if result.exit_code != 0:
            raise SandboxError(f"terminus2: tmux capture-pane failed (exit {result.exit_code}): "
                               f"{result.output.strip()[:300]}")
        return result.stdout

    async def initial_screen(self, timeout: float = 15.0) -> str:
        """The visible screen once the shell is ready; sets the baseline of the diff.

        Keys typed before the shell reads its terminal may be flushed by its startup, so this waits for a
        non-empty screen (the prompt) that stays the same for a moment, up to ``timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        deadline, last = loop.time() + timeout, None
        while True:
            screen = (await self.capture(full=False)).strip()
            if (screen and screen == last) or loop.time() > deadline:
                break
            last = screen
            await asyncio.sleep(0.2)
        self._previous = (await self.capture(full=True)).rstrip()
        return cap_bytes(screen, self.max_output_bytes)

    async def visible_screen(self) -> str:
        return cap_bytes(await self.capture(full=False), self.max_output_bytes)

    def _new_content(self, current: str) -> str | None:
        """Output since the previous capture, from the start of its last line; None when not a continuation."""
        previous = (self._previous or "").rstrip()
        if not current.startswith(previous):
            return None
        line_start = previous.rfind("\n") + 1
        return current[line_start:]

    async def incremental_output(self) -> str:
        """``New Terminal Output:`` since the last call, else ``Current Terminal Screen:`` (both capped)."""
        current = (await self.capture(full=True)).rstrip()
        new = self._new_content(current) if self._previous is not None else None
        self._previous = current
        if new is not None and new.strip():
            return "New Terminal Output:\n" + cap_bytes(new, self.max_output_bytes)
        return "Current Terminal Screen:\n" + await self.visible_screen()

    def reset_diff(self) -> None:
        """Forget the previous capture: the next observation starts from the visible screen."""
        self._previous = None
