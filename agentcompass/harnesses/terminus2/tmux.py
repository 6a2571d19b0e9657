"""A tmux session inside the environment, driven only through ``env.exec``, as Harbor 0.26.0's TmuxSession.

What matches Harbor (``harbor/agents/terminus_2/tmux_session.py``):

- the session: ``new-session -x W -y H -d -s terminus-2 'bash --login'`` with ``TERM=xterm-256color`` and
  ``SHELL=/bin/bash``, ``pipe-pane`` into ``/logs/agent/terminus_2.pane``, then ``set-option -g history-limit``.
  That option comes after the pane exists, so (as in Harbor) the pane keeps tmux's default history (2,000 lines
  unless the image's tmux.conf says otherwise); the option holds for panes made later;
- with ``record_terminal`` the keys ``asciinema rec --stdin /logs/agent/recording.cast`` + ``Enter``
  (1 s), then ``clear`` + ``Enter``: asciinema records when the image has it (it is never installed here),
  and the screen is cleared either way;
- keystrokes: each command's ``keystrokes`` is ONE ``send-keys -t terminus-2 --`` argument, so tmux itself
  decides: a whole key name (``C-c``) is that key, anything else is typed, a newline runs the line, and a
  trailing ``;`` is read by tmux as a command separator (dropped). A key whose quoted form does not fit a
  16,000-byte command, or that tmux rejects as "command too long", is pasted through a paste buffer;
- the wait: after sending, sleep ``duration`` minus the time the send took (nothing for NaN or negatives);
- the observation: Harbor's diff of the whole scrollback against the previous capture (``New Terminal
  Output:``), else the visible screen (``Current Terminal Screen:``), headers read from Harbor's source.

Ours: a private tmux server per session (``tmux -L <socket>``) so attempts sharing a host never meet; the
session starts in the task's workdir; ``sh -l`` when the image has no bash; :meth:`wait_ready` waits until the
shell has drawn its prompt before the first capture (Harbor captures at once, which races the shell). Bounded
where Harbor is not: the history limit is ``history_limit`` lines (Harbor: 10,000,000, which a window the agent
opens gets, and a flooding command there grows the server by gigabytes), and the pane log keeps the first and last
``pane_log_bytes / 2`` bytes (Harbor's ``cat`` keeps everything).
"""

from __future__ import annotations

import asyncio
import base64
import shlex
import time
import uuid
from typing import Any

from agentcompass.errors import AgentError, DependencyError, SandboxError
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.interfaces import ON_HOST, Environment, ExecResult
from agentcompass.kit import ensure_tools

PANE_LOG = "/logs/agent/terminus_2.pane"
RECORDING = "/logs/agent/recording.cast"
HISTORY_LIMIT = 10_000  # lines of scrollback (Harbor: 10,000,000)
PANE_LOG_BYTES = 2_000_000  # the pane log keeps the first and the last half of this
MAX_COMMAND_BYTES = 16_000  # Harbor's bound on one send-keys command
PASTE_CHUNK = 32_768  # base64 characters per write of a paste-buffer file
TOO_LONG = "command too long"


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def needs_paste(key: str, session_name: str) -> bool:
    """Harbor's rule: the quoted key does not fit one ``tmux send-keys -t <name> --`` command."""
    prefix = "tmux send-keys -t " + shlex.quote(session_name) + " --"
    return utf8_len(shlex.quote(key)) > MAX_COMMAND_BYTES - utf8_len(prefix) - 1


def send_batches(keys: list[str], session_name: str) -> list[list[str]]:
    """Harbor's grouping of keys into send-keys commands below the size bound (keys that fit)."""
    prefix_len = utf8_len("tmux send-keys -t " + shlex.quote(session_name) + " --")
    batches: list[list[str]] = []
    batch: list[str] = []
    size = prefix_len
    for key in keys:
        add = 1 + utf8_len(shlex.quote(key))
        if batch and size + add > MAX_COMMAND_BYTES:
            batches.append(batch)
            batch, size = [], prefix_len
        batch.append(key)
        size += add
    if batch:
        batches.append(batch)
    return batches


def limit_output(text: str, max_bytes: int, prompts: HarborPrompts) -> str:
    """Harbor's ``_limit_output_length``: over ``max_bytes`` UTF-8 bytes, the first and last halves (partial
    characters dropped) around Harbor's omitted-bytes note."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= max_bytes:
        return text
    portion = max_bytes // 2
    first = data[:portion].decode("utf-8", errors="ignore")
    last = data[-portion:].decode("utf-8", errors="ignore")
    omitted = len(data) - len(first.encode("utf-8")) - len(last.encode("utf-8"))
    return prompts.text(
        "output_limited", first_portion=first, max_bytes=max_bytes, omitted_bytes=omitted, last_portion=last
    )


def pane_log_command(path: str, max_bytes: int) -> str:
    """The ``pipe-pane`` command keeping the pane's first and last ``max_bytes // 2`` bytes in ``path``: the
    head is written as it comes (unbuffered through ``stdbuf`` where coreutils has it, as Harbor's ``cat``), the
    tail (held by ``tail -c``) when the pipe closes, after a note that the middle was cut; POSIX sh and
    coreutils / busybox."""
    half, q = max(1, max_bytes // 2), shlex.quote(path)
    tail = shlex.quote(path + ".tail")
    note = f"\\n[pane log: the middle was cut; only the first and the last {half} bytes are kept]\\n"
    head = f"if command -v stdbuf >/dev/null 2>&1; then stdbuf -o0 head -c {half}; else head -c {half}; fi"
    return (
        f"{{ {head}; }} > {q}; tail -c {half} > {tail}; "
        f"if [ $(wc -c < {tail}) -ge {half} ]; then printf '{note}' >> {q}; fi; "
        f"cat {tail} >> {q}; rm -f {tail}"
    )


def find_new_content(previous: str | None, current: str) -> str | None:
    """Harbor's diff: from the previous capture's last line on, or None when it is not found in ``current``."""
    pb = "" if previous is None else previous.strip()
    if pb in current:
        idx = current.index(pb)
        if "\n" in pb:
            idx = pb.rfind("\n")  # (sic) an offset into the previous capture, as Harbor computes it
        return current[idx:]
    return None


class TmuxSession:
    """One ``bash --login`` in a detached tmux session on a private tmux server inside ``env``."""

    def __init__(
        self,
        env: Environment,
        prompts: HarborPrompts,
        name: str = "terminus-2",
        *,
        workdir: str = "/app",
        width: int = 160,
        height: int = 40,
        record: bool = True,
        auto_install: bool = False,
        image: str | None = None,
        logger: Any = None,
        history_limit: int = HISTORY_LIMIT,
        pane_log_bytes: int = PANE_LOG_BYTES,
    ) -> None:
        self.env, self.prompts, self.name, self.workdir = env, prompts, name, workdir
        self.history_limit, self.pane_log_bytes = history_limit, pane_log_bytes
        self.width, self.height, self.record = width, height, record
        self.auto_install, self.image, self.logger = auto_install, image, logger
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
        except Exception as exc:
            if self.logger:
                self.logger.debug("terminus2: describe failed: %s", exc)
        image = self.image or desc.get("image")
        if ON_HOST.of(self.env):
            return f"the local environment (host, workspace {desc.get('workspace', self.env.id)})"
        return f"image {image!r}" if image else f"environment {self.env.id!r}"

    async def ensure_tmux(self) -> None:
        """Check tmux is installed; install it (auto_install) or raise DependencyError naming the image."""
        if (await self._run("command -v tmux")).exit_code == 0:
            return
        where = self._where()
        local = ON_HOST.of(self.env)
        if not self.auto_install or local:
            hint = (
                "install tmux on this host (e.g. apt-get install -y tmux)"
                if local
                else "add tmux to the image (e.g. RUN apt-get install -y tmux) or set auto_install_dependencies=true"
            )
            raise DependencyError(f"terminus2 needs tmux, which is not installed in {where}; {hint}")
        await ensure_tools(self.env, ["tmux"], auto_install=True, image_hint=self.image or "")

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        await self.ensure_tmux()
        log_path, workdir = self.env.path(PANE_LOG), self.env.path(self.workdir)
        setup = await self._run(
            f"mkdir -p {shlex.quote(log_path.rsplit('/', 1)[0])} {shlex.quote(workdir)} && "
            "{ command -v bash >/dev/null 2>&1 && echo 'bash --login' || echo 'sh -l'; }"
        )
        if setup.exit_code != 0:
            raise SandboxError(f"terminus2: cannot create {PANE_LOG} / {self.workdir}: {setup.output.strip()}")
        argv = self._tmux(
            "new-session",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-d",
            "-s",
            self.name,
            "-c",
            workdir,
            setup.stdout.strip() or "bash --login",
            ";",
            "pipe-pane",
            "-t",
            self.name,
            pane_log_command(log_path, self.pane_log_bytes),
        )
        result = await self._run(
            "export TERM=xterm-256color && export SHELL=/bin/bash && unset TMUX && " + shlex.join(argv)
        )
        if result.exit_code != 0:
            raise SandboxError(
                f"terminus2: tmux new-session failed (exit {result.exit_code}): {result.output.strip()[:500]}"
            )
        self.started = True
        history = await self._run(self._tmux("set-option", "-g", "history-limit", str(self.history_limit)))
        if history.exit_code != 0 and self.logger:
            self.logger.debug("terminus2: tmux history-limit not set: %s", history.output.strip())
        if self.record:
            await self.send_keys([f"asciinema rec --stdin {self.env.path(RECORDING)}", "Enter"], 1.0)
            await self.send_keys(["clear", "Enter"], 0.0)

    async def close_log(self) -> None:
        """Stop piping the pane into its log, which then gets its tail (best effort)."""
        if self.started:
            await self._run(self._tmux("pipe-pane", "-t", self.name), timeout=15)

    async def stop(self) -> None:
        """Kill this session's tmux server (best effort, idempotent)."""
        if not self.started:
            return
        self.started = False
        try:
            await self._run(self._tmux("kill-server"), timeout=15)
        except Exception as exc:
            if self.logger:
                self.logger.debug("terminus2: tmux kill-server failed: %s", exc)

    async def is_alive(self) -> bool:
        return (await self._run(self._tmux("has-session", "-t", self.name))).exit_code == 0

    # ------------------------------------------------------------------ keys
    async def send_keys(self, keys: list[str], min_timeout_s: float = 0.0) -> None:
        """Send ``keys`` (one tmux argument each) without waiting for them to run, then sleep what is left of
        ``min_timeout_s`` (Harbor's non-blocking send)."""
        start = time.monotonic()
        batch: list[str] = []
        for key in keys:
            if needs_paste(key, self.name):
                await self._send_batches(batch)
                batch = []
                await self._paste(key)
            else:
                batch.append(key)
        await self._send_batches(batch)
        elapsed = time.monotonic() - start
        if elapsed < min_timeout_s:
            await asyncio.sleep(min_timeout_s - elapsed)

    async def _send_batches(self, keys: list[str]) -> None:
        for batch in send_batches(keys, self.name):
            result = await self._run(self._tmux("send-keys", "-t", self.name, "--", *batch))
            if result.exit_code == 0:
                continue
            if TOO_LONG not in result.stderr:
                raise self._send_error(result)
            for key in batch:  # this tmux has a smaller limit: one by one, else paste
                single = await self._run(self._tmux("send-keys", "-t", self.name, "--", key))
                if single.exit_code != 0 and TOO_LONG in single.stderr:
                    await self._paste(key)
                elif single.exit_code != 0:
                    raise self._send_error(single)

    def _send_error(self, result: ExecResult) -> AgentError:
        return AgentError(
            f"terminus2: tmux send-keys failed (exit {result.exit_code}; did the session end?): "
            f"{result.output.strip()[:300]}"
        )

    async def _paste(self, key: str) -> None:
        """Stage ``key`` in a file (base64 chunks) and paste it into the pane with a tmux buffer."""
        if not key:
            return
        token = uuid.uuid4().hex
        path = shlex.quote(self.env.path(f"/tmp/.runtime-tmux-paste-{token}"))
        buffer = f"runtime-paste-{token}"
        payload = base64.b64encode(key.encode("utf-8")).decode("ascii")
        tmux = shlex.join(self._tmux())
        try:
            await self._checked(f"mkdir -p $(dirname {path})")
            for offset in range(0, len(payload), PASTE_CHUNK):
                redirect = ">>" if offset else ">"
                await self._checked(f"printf %s {payload[offset : offset + PASTE_CHUNK]} | base64 -d {redirect} {path}")
            await self._checked(
                f"{tmux} load-buffer -b {buffer} {path} && "
                f"{tmux} paste-buffer -d -b {buffer} -t {shlex.quote(self.name)}"
            )
        finally:
            await self._run(f"rm -f {path}")

    async def _checked(self, command: str) -> None:
        result = await self._run(command)
        if result.exit_code != 0:
            raise self._send_error(result)

    # ------------------------------------------------------------------ screen
    async def capture(self, full: bool = False) -> str:
        """``capture-pane -p`` (``-S -``: the whole scrollback); what tmux printed, "" when it failed."""
        args = ["capture-pane", "-p"] + (["-S", "-"] if full else []) + ["-t", self.name]
        return (await self._run(self._tmux(*args))).stdout or ""

    async def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait until the visible screen is non-empty and unchanged for a moment (the shell's prompt)."""
        loop = asyncio.get_running_loop()
        deadline, last = loop.time() + timeout, None
        while loop.time() < deadline:
            screen = (await self.capture()).strip()
            if screen and screen == last:
                return
            last = screen
            await asyncio.sleep(0.2)

    async def incremental_output(self) -> str:
        """Harbor's ``get_incremental_output``: new output since the last call, else the visible screen."""
        current = await self.capture(full=True)
        if self._previous is None:
            self._previous = current
            return self.prompts.text("current_screen", visible_screen=await self.capture())
        new = find_new_content(self._previous, current)
        self._previous = current
        if new is not None and new.strip():
            return self.prompts.text("new_output", new_content=new)
        return self.prompts.text("current_screen", visible_screen=await self.capture())
