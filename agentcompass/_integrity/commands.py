"""What a shell command does to files, read from its text: the paths it writes (redirections, ``tee``, ``cp``,
``mv``, ``ln``, ``install``, ``sed -i``, ``touch``, Python's ``open(..., "w")``), deletes (``rm``) or names.

Deliberately simple: a command is split into simple commands at ``;``, ``&&``, ``||``, ``|`` and line ends (a
here-document's body is read as lines too), each tokenized with :mod:`shlex` where it can be.
"""

from __future__ import annotations

import functools
import re
import shlex

_SPLIT = re.compile(r"\n|;|&&|\|\||\|")
_REDIRECT = re.compile(r"(?:^|[^<>&0-9])[0-9]?>>?\|?\s*(['\"]?)([^\s;&|<>'\"()`]+)\1")
_PY_WRITE = re.compile(r"open\(\s*[rfb]?['\"]([^'\"]+)['\"]\s*,\s*[rfb]?['\"][wax]")
_PY_WRITE_TEXT = re.compile(r"Path\(\s*[rfb]?['\"]([^'\"]+)['\"]\s*\)\s*\.\s*write_(?:text|bytes)")
_LAST_ARG_WRITERS = {"cp", "mv", "ln", "install", "rsync"}
_ALL_ARG_WRITERS = {"touch", "truncate"}
_TO_NULL = {"/dev/null", "/dev/stdout", "/dev/stderr", "&1", "&2"}


def segments(command: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(command) if s.strip()]


def words(segment: str) -> list[str]:
    return list(_words(segment))


@functools.lru_cache(maxsize=4096)  # every detector splits the same commands again
def _words(segment: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(segment, comments=False))
    except ValueError:
        return tuple(segment.split())


def _args(tokens: list[str]) -> list[str]:
    return [t for t in tokens[1:] if not t.startswith("-")]


def _program(tokens: list[str]) -> str:
    """The program of a simple command, past ``sudo`` / ``env`` and variable assignments."""
    for token in tokens:
        if token in ("sudo", "env", "command", "exec", "nohup", "setsid") or re.match(r"^\w+=", token):
            continue
        return token.rsplit("/", 1)[-1]
    return ""


def _rest(tokens: list[str]) -> list[str]:
    program = _program(tokens)
    for i, token in enumerate(tokens):
        if token.rsplit("/", 1)[-1] == program:
            return tokens[i:]
    return tokens


def written_paths(command: str) -> list[str]:
    """The paths a command writes (created, overwritten, appended to, copied or linked onto, edited in place)."""
    out = [m.group(2) for m in _REDIRECT.finditer(command) if m.group(2) not in _TO_NULL]
    out += _PY_WRITE.findall(command) + _PY_WRITE_TEXT.findall(command)
    for segment in segments(command):
        tokens = _rest(words(segment))
        program, args = _program(tokens), _args(tokens)
        if program == "tee":
            out += args
        elif program in _LAST_ARG_WRITERS and len(args) >= 2:
            out.append(args[-1])
        elif program in _ALL_ARG_WRITERS:
            out += args
        elif program == "sed" and any(t.startswith("-i") or t == "--in-place" for t in tokens[1:]) and args:
            out += args[1:]
        elif program == "chmod" and len(args) >= 2 and "x" in args[0]:
            out += args[1:]
    return [p for p in dict.fromkeys(out) if p]


def content_paths(command: str) -> list[str]:
    """The paths a command writes content of its own into (redirections, ``tee``, Python writes), as opposed to
    copying or linking an existing file."""
    out = [m.group(2) for m in _REDIRECT.finditer(command) if m.group(2) not in _TO_NULL]
    out += _PY_WRITE.findall(command) + _PY_WRITE_TEXT.findall(command)
    for segment in segments(command):
        tokens = _rest(words(segment))
        if _program(tokens) == "tee":
            out += _args(tokens)
    return [p for p in dict.fromkeys(out) if p]


def deleted_paths(command: str) -> list[str]:
    out: list[str] = []
    for segment in segments(command):
        tokens = _rest(words(segment))
        if _program(tokens) in ("rm", "unlink", "rmdir", "shred"):
            out += _args(tokens)
        elif _program(tokens) == "git" and len(tokens) > 1 and tokens[1] == "rm":
            out += _args(tokens[1:])
    return out


def programs(command: str) -> list[tuple[str, list[str]]]:
    """``(program, tokens)`` of every simple command."""
    out = []
    for segment in segments(command):
        tokens = _rest(words(segment))
        if tokens:
            out.append((_program(tokens), tokens))
    return out


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def excerpt(text: str, needle: str = "", width: int = 240) -> str:
    """At most ``width`` characters of ``text`` around ``needle`` (its start without one)."""
    at = text.find(needle) if needle else 0
    start = max(0, at - width // 3) if at > 0 else 0
    cut = text[start : start + width]
    return ("..." if start else "") + cut + ("..." if start + width < len(text) else "")
