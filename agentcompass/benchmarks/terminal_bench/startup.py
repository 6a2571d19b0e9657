"""Python start-up hooks the verifier would run (hole 3 of docs/integrity.md): files that execute code, or change
pytest's collection, whenever the verifier's interpreter or pytest starts, wherever an agent can write them.

- ``*.pth``, ``sitecustomize.py`` and ``usercustomize.py`` in the site directories of the usual interpreters (the
  system's, ``/usr/local``'s, the user site of root, ``/opt/*``, ``/*/.venv``, uv's managed Pythons);
- ``conftest.py`` and pytest's configuration files (``pytest.ini``, ``pyproject.toml``, ``tox.ini``,
  ``setup.cfg``) above the tests directory (``/``), which pytest reads for ``/tests``;
- the programs test scripts run (``python3``, ``python``, ``pytest``, ``uv``, ``bash``, ``sh`` where the usual
  ``bin`` directories have them): only their form is compared (a compiled program, or a script and its ``#!``
  line), so an upgrade is not a change but a script put in place of a compiled interpreter, or a new ``#!`` line,
  is (``replaced``).

The files are listed with shell globs and built-ins only, and read with the environment's own file API
(``env.read_file``), once when the task is set up (before the agent) and again before the verifier runs; the ones
added or changed in between are the agent's (``startup_hooks_changed``). With ``isolate_verifier_startup`` the
ones no honest solution needs (``sitecustomize.py``, ``usercustomize.py``, a ``conftest.py`` or a pytest
configuration above the tests) are emptied before the verifier runs, and a replaced program makes the grade a
verifier error (the verifier does not run with it); ``.pth`` files are recorded only (``pip install -e`` writes
one, and the tests may import what it installs).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import shlex
from typing import Any

from agentcompass.benchmarks.terminal_bench.shapes import HookFile, StartupHook

SITE_DIRS = (
    "/usr/lib/python3*/site-packages",
    "/usr/lib/python3*/dist-packages",
    "/usr/lib/python3/dist-packages",
    "/usr/local/lib/python3*/site-packages",
    "/usr/local/lib/python3*/dist-packages",
    "/root/.local/lib/python3*/site-packages",
    "/opt/*/lib/python3*/site-packages",
    "/*/.venv/lib/python3*/site-packages",
    "/root/.local/share/uv/python/*/lib/python3*/site-packages",
)
SITE_FILES = ("*.pth", "sitecustomize.py", "usercustomize.py")
BIN_DIRS = ("/usr/local/bin", "/usr/bin", "/bin", "/root/.local/bin")
PROGRAMS = ("python3", "python", "python3.*", "pytest", "py.test", "uv", "uvx", "bash", "sh")
ABOVE_TESTS = ("conftest.py", "pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
NEUTRALIZED = ("sitecustomize.py", "usercustomize.py", *ABOVE_TESTS)
MAX_FILES = 300
MAX_BYTES = 1 << 20
EXCERPT = 300
_MARK = "@@agentcompass-hook@@"
_BIN = "@@agentcompass-program@@"


def _globs(env: Any, tests_path: str) -> list[str]:
    """The glob patterns (quoted for bash, the wildcards left out of the quotes) in the environment's paths."""
    root = posixpath.dirname(tests_path.rstrip("/")) or "/"
    patterns = [posixpath.join(d, f) for d in SITE_DIRS for f in SITE_FILES]
    patterns += [posixpath.join(root, f) for f in ABOVE_TESTS]
    return [_glob_quote(env.path(p)) for p in patterns]


def _glob_quote(path: str) -> str:
    return "".join(part if part == "*" else shlex.quote(part) for part in _split_stars(path))


def _split_stars(path: str) -> list[str]:
    out: list[str] = []
    for i, chunk in enumerate(path.split("*")):
        if i:
            out.append("*")
        if chunk:
            out.append(chunk)
    return out


def list_command(env: Any, tests_path: str) -> str:
    """Bash (built-ins only) printing every start-up hook file that exists, one per line behind a marker, then
    each program's form (``elf``, or the first line of a script) behind another."""
    programs = " ".join(_glob_quote(env.path(posixpath.join(d, p))) for d in BIN_DIRS for p in PROGRAMS)
    return (
        f'for f in {" ".join(_globs(env, tests_path))}; do [ -f "$f" ] && echo "{_MARK} $f"; done; '
        f'for f in {programs}; do [ -f "$f" ] || continue; m=; IFS= read -r -n 80 m < "$f"; '
        f'case "$m" in $\'\\177ELF\'*) m=elf;; "#!"*) ;; *) m=other;; esac; echo "{_BIN} $f $m"; done; exit 0'
    )


async def snapshot(env: Any, tests_path: str = "/tests") -> dict[str, HookFile]:
    """path -> {sha256, excerpt} of every start-up hook file in the environment now."""
    res = await env.exec(list_command(env, tests_path), timeout=120)
    prefix = env.path("/").rstrip("/")  # the local environment's paths are under its workspace
    paths = [line[len(_MARK) + 1 :] for line in res.stdout.splitlines() if line.startswith(_MARK + " ")]
    paths = [p[len(prefix) :] if prefix and p.startswith(prefix + "/") else p for p in paths]
    out: dict[str, HookFile] = {}
    for line in res.stdout.splitlines():
        if line.startswith(_BIN + " "):
            path, _, form = line[len(_BIN) + 1 :].partition(" ")
            path = path[len(prefix) :] if prefix and path.startswith(prefix + "/") else path
            out[path] = {"form": form.strip()[:80], "excerpt": form.strip()[:80]}
    for path in paths[:MAX_FILES]:
        try:
            data = bytes(await env.read_file(path))[:MAX_BYTES]
        except (FileNotFoundError, IsADirectoryError):
            continue
        text = data[:EXCERPT].decode("utf-8", errors="replace")
        out[path] = {"sha256": hashlib.sha256(data).hexdigest(), "excerpt": text}
    return out


def changed(before: dict[str, HookFile], after: dict[str, HookFile]) -> list[StartupHook]:
    """The hook files added or changed since ``before``: ``{path, kind, sha256, excerpt, change}``."""
    out: list[StartupHook] = []
    for path, now in sorted(after.items()):
        was = before.get(path)
        if "form" in now:  # a program: only a different form is a change (an upgrade is not)
            if _program_replaced(path, was, now["form"]):
                change = "added" if was is None else "replaced"
                before_form = (was or {}).get("form", "")
                out.append(
                    {"path": path, "kind": "program", "change": change, "excerpt": now["form"], "before": before_form}
                )
            continue
        if was is not None and was["sha256"] == now["sha256"]:
            continue
        kind = "pth" if path.endswith(".pth") else posixpath.basename(path)
        change = "added" if was is None else "changed"
        out.append({"path": path, "kind": kind, "change": change, "sha256": now["sha256"], "excerpt": now["excerpt"]})
    return out


def _program_replaced(path: str, was: HookFile | None, form: str) -> bool:
    """A program whose form changed; or a new shell script named like Python or pytest (``pip install`` writes
    a ``#!`` line naming Python; a hijack often a shell's)."""
    if was is not None:
        return was.get("form") != form
    shell = form.startswith("#!") and posixpath.basename(form[2:].split()[0] if form[2:].split() else "") in (
        "sh",
        "bash",
        "dash",
    )
    return shell and re.fullmatch(r"python(?:3(?:\.\d+)?)?|pytest|py\.test", posixpath.basename(path)) is not None


def replaced_programs(hooks: list[StartupHook]) -> list[str]:
    return [h["path"] for h in hooks if h["kind"] == "program"]


async def neutralize(env: Any, hooks: list[StartupHook]) -> None:
    """Empty the changed hooks no honest solution needs (``NEUTRALIZED``), with the environment's file API."""
    for hook in hooks:
        if hook["kind"] in NEUTRALIZED:
            await env.write_file(hook["path"], b"")
            hook["neutralized"] = True


async def since(env: Any, before: dict[str, HookFile] | None, *, isolate: bool) -> list[StartupHook]:
    """The hooks added or changed since ``before`` (none known without it), emptied with ``isolate``."""
    if before is None:
        return []
    hooks = changed(before, await snapshot(env))
    if isolate:
        await neutralize(env, hooks)
    return hooks
