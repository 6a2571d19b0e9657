"""A deterministic stand-in for tmux behind ``env.exec`` (standard library only).

Used by the loop agreement test on BOTH sides: Harbor's own TmuxSession (in the harbor venv, where this file's
source is executed) and ours send their real tmux command lines to :func:`handle`, which answers as tmux would
for one pane: ``send-keys`` (key names, literal text, a trailing ``;`` read as a separator), ``capture-pane``
(visible screen, or the whole history with ``-S -``), ``has-session``; anything else (``tmux -V``,
``new-session``, ``set-option``, ``mkdir``...) succeeds silently. Commands typed into the pane print canned
outputs, so both sides see the same screens for the same keystrokes.
"""

from __future__ import annotations

import shlex

PROMPT = "root@box:/app# "
KEY_ENTER = {"Enter", "C-m", "KPEnter", "C-j", "^M", "^J"}


class FakePane:
    def __init__(self, outputs: dict[str, str], height: int = 40) -> None:
        self.outputs, self.height = outputs, height
        self.lines: list[str] = []
        self.current = PROMPT
        self.alive = True
        self.typed: list[str] = []  # every line run, in order

    def _enter(self) -> None:
        line, self.current = self.current, PROMPT
        self.lines.append(line)
        command = line.removeprefix(PROMPT)
        self.typed.append(command)
        if command.strip() == "exit":
            self.alive = False
            return
        out = self.outputs.get(command.strip())
        if out is None and command.strip().startswith("echo "):
            out = command.strip()[5:]
        if out:
            self.lines.extend(out.split("\n"))

    def send(self, arg: str) -> None:
        if arg in KEY_ENTER:
            self._enter()
        elif arg == "C-c":
            self.current += "^C"
            self.lines.append(self.current)
            self.current = PROMPT
        elif arg.endswith(";") and not arg.endswith("\\;"):
            self.send(arg[:-1]) if arg[:-1] else None
        else:
            for ch in arg.replace("\\;", ";"):
                if ch in "\r\n":
                    self._enter()
                else:
                    self.current += ch

    def rows(self, full: bool) -> list[str]:
        rows = self.lines + [self.current]
        visible = rows[-self.height :]
        visible += [""] * (self.height - len(visible))
        body = rows[: -self.height] + visible if full else visible
        return [r.rstrip() for r in body]

    def capture(self, full: bool) -> str:
        return "\n".join(self.rows(full)) + "\n"


def handle(pane: FakePane, command: str | list[str]) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of one command line as tmux (or the shell) would answer it."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if "tmux" not in argv:
        return 0, "", ""
    argv = argv[argv.index("tmux") + 1 :]
    if argv[:1] == ["-L"]:
        argv = argv[2:]
    verb = argv[0] if argv else ""
    if verb == "send-keys":
        if not pane.alive:
            return 1, "", "can't find session"
        for arg in argv[argv.index("--") + 1 :]:
            pane.send(arg)
        return 0, "", ""
    if verb == "capture-pane":
        return 0, pane.capture("-S" in argv), ""
    if verb == "has-session":
        return (0 if pane.alive else 1), "", ""
    return 0, "", ""
