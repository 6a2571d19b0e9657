"""aider's chat history (``--chat-history-file``, Markdown) as ATIF.

The file is a series of sessions (``# aider chat started at ...``); in each, ``#### `` lines are what aider sent as
the user (the instruction), lines quoted with ``> `` are aider's own output (tool output: files created, commits,
warnings; a line aider wrote itself ends with two spaces, which tells a quoted line's continuation from the
model's text) and every other line belongs to the model's reply. One agent step per reply, its following tool output
attached as the step's observation.
"""

from __future__ import annotations

from pathlib import Path

from agentcompass.harnesses._installed import atif


def _blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) runs of the history: ``user``, ``tool`` or ``reply``."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# aider chat started at"):
            continue
        kind = "user" if line.startswith("####") else "tool" if line.startswith(">") else "reply"
        if kind == "reply" and line.endswith("  ") and out and out[-1][0] == "tool":
            kind = "tool"  # aider ends every line it writes itself with two spaces: a quoted line's continuation
        body = (line[4:] if kind == "user" else line[1:] if line.startswith(">") else line).strip(" ")
        body = line.rstrip() if kind == "reply" else body
        if out and out[-1][0] == kind:
            out[-1][1].append(body)
        else:
            out.append((kind, [body]))
    return [(k, "\n".join(lines).strip()) for k, lines in out if "\n".join(lines).strip()]


def convert(history: Path, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    try:
        text = Path(history).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    blocks = _blocks(text)
    if not blocks:
        return None
    builder = atif.Builder("aider", version, model)
    builder.user(instruction)
    for kind, body in blocks:
        if kind == "reply":
            builder.agent_step(body)
        elif kind == "tool" and builder.steps[-1]["source"] == "agent":
            builder.steps[-1].setdefault("observation", {"results": []})["results"].append({"content": body})
        elif kind == "user" and body.split() != instruction.split():
            builder.user(body)
    return builder.to_dict()
