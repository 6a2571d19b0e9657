"""Running the enabled recipes' hooks inside an attempt's environment.

Built once per request from ``config.recipes`` (the record the composition left in the resolved config).
Host variables named by a recipe's ``env`` are read when the request starts; a required one that is unset is
a ConfigError before any attempt runs. Their values never reach disk: secret-looking ones (by name, or the
password of a URL) are registered for redaction, and the recorded config only names them.

Failures: a hook command that exits non-zero is a ``config`` error of the attempt (ConfigError: the recipe's
command does not work in this environment; not retried unless ``retry_pattern_list`` matches it); a hook that
times out, and a failed upload, are ``infra`` errors (SandboxError, retryable). A missing tool is a
DependencyError (``config``) naming the flag.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agentcompass._config import RECIPE_PHASES as PHASES
from agentcompass._config import RecipeRecord
from agentcompass._orchestrator.record import RECIPES_LOG
from agentcompass.errors import ConfigError, SandboxError
from agentcompass.interfaces import AttemptContext, Environment

_SECRET_NAME = re.compile(r"(key|token|secret|password|passwd|credential|auth)", re.I)
_MAX_LOGGED = 20_000


def _register_secrets(name: str, value: str) -> None:
    from agentcompass._config import register_secret

    if _SECRET_NAME.search(name):
        register_secret(value)
    try:
        password = urlsplit(value).password
    except ValueError:
        password = None
    if password:
        register_secret(password)


def read_host_env(recipes: dict[str, RecipeRecord]) -> dict[str, dict[str, str]]:
    """``{recipe_id: {NAME: value}}`` from the host; a required variable that is unset is a ConfigError."""
    out: dict[str, dict[str, str]] = {}
    for rid, rec in recipes.items():
        values: dict[str, str] = {}
        for name, default in (rec.get("env") or {}).items():
            value = os.environ.get(name)
            if value is None and default is None:
                raise ConfigError(
                    f"recipe {rid!r} needs the host environment variable {name} "
                    f"(recipe file {rec.get('path')}); set it, or disable the recipe"
                )
            values[name] = value if value is not None else str(default)
            _register_secrets(name, values[name])
        out[rid] = values
    return out


class RecipeRunner:
    """``run_hooks(phase, env, ctx)`` for the recipes of one request, in the order they were enabled."""

    def __init__(self, recipes: dict[str, RecipeRecord], *, logger: Any = None) -> None:
        self.recipes = dict(recipes)
        self.env_values = read_host_env(self.recipes)
        self.logger = logger

    @classmethod
    def from_config(cls, recipes: dict[str, RecipeRecord] | None, *, logger: Any = None) -> RecipeRunner | None:
        """None when no recipe is enabled (the orchestrator then skips hooks entirely)."""
        return cls(recipes, logger=logger) if recipes else None

    async def run_hooks(self, phase: str, env: Environment, ctx: AttemptContext) -> None:
        if phase not in PHASES:
            raise ValueError(f"unknown recipe phase {phase!r}; phases: {', '.join(PHASES)}")
        for rid, rec in self.recipes.items():
            if phase == "after_open":
                await self._upload(rid, rec, env)
                await self._tools(rec, env, ctx)
            for i, cmd in enumerate((rec.get("hooks") or {}).get(phase, [])):
                await self._run(rid, rec, phase, i, cmd, env, ctx)

    async def _upload(self, rid: str, rec: RecipeRecord, env: Environment) -> None:
        for src, dst in (rec.get("files") or {}).items():
            try:
                await env.upload(Path(src), dst)
            except SandboxError:
                raise
            except Exception as exc:
                raise SandboxError(f"recipe {rid!r}: uploading {src} to {dst} failed: {exc}") from exc

    async def _tools(self, rec: RecipeRecord, env: Environment, ctx: AttemptContext) -> None:
        tools = rec.get("tools") or []
        if tools:
            from agentcompass._deps import ensure_tools

            await ensure_tools(
                env,
                tools,
                auto_install=bool(getattr(ctx, "auto_install_dependencies", False)),
                image_hint=str((env.describe() or {}).get("image") or ""),
            )

    def _variables(self, rid: str, phase: str, env: Environment, ctx: AttemptContext) -> dict[str, str]:
        root = env.path("/").rstrip("/")
        task = getattr(ctx, "task", None)
        return {
            **self.env_values.get(rid, {}),
            "AGENTCOMPASS_RECIPE": rid,
            "AGENTCOMPASS_PHASE": phase,
            "AGENTCOMPASS_TASK_ID": str(getattr(task, "id", "")),
            "AGENTCOMPASS_ATTEMPT": str(getattr(ctx, "attempt", "")),
            "AGENTCOMPASS_ENV_ROOT": root,
            "AGENTCOMPASS_WORKDIR": env.path(env.workdir),
            "AGENTCOMPASS_LOGS_DIR": env.path("/logs"),
        }

    async def _run(
        self, rid: str, rec: RecipeRecord, phase: str, i: int, cmd: str, env: Environment, ctx: AttemptContext
    ) -> None:
        timeout = float(rec.get("hook_timeout_s") or 600.0)
        start = time.monotonic()
        res = await env.exec(cmd, timeout=timeout, cwd=env.workdir, env=self._variables(rid, phase, env, ctx))
        self._log(ctx, rid, phase, i, cmd, res, time.monotonic() - start)
        where = f"recipe {rid!r} {phase} hook #{i + 1}"
        if res.timed_out:
            raise SandboxError(f"{where} timed out after {timeout:g}s: {_short(cmd)}")
        if res.exit_code != 0:
            last = next((ln for ln in reversed(res.output.strip().splitlines()) if ln.strip()), "")
            raise ConfigError(f"{where} failed (exit {res.exit_code}): {_short(cmd)}: {_scrub(last)[:200]}")

    def _log(self, ctx: AttemptContext, rid: str, phase: str, i: int, cmd: str, res: Any, secs: float) -> None:
        attempt_dir = getattr(ctx, "attempt_dir", None)
        if attempt_dir is None:
            return
        text = (
            f"=== {phase} recipe={rid} hook#{i + 1} exit={res.exit_code} {secs:.2f}s\n$ {cmd}\n"
            f"{res.output[-_MAX_LOGGED:]}\n"
        )
        try:
            Path(attempt_dir).mkdir(parents=True, exist_ok=True)
            with open(Path(attempt_dir) / RECIPES_LOG, "a", encoding="utf-8") as fh:
                fh.write(_scrub(text))
        except OSError as exc:
            if self.logger is not None:
                self.logger.debug("cannot write %s: %s", RECIPES_LOG, exc)


def _scrub(text: str) -> str:
    from agentcompass._config import scrub

    return scrub(text)


def _short(cmd: str) -> str:
    one = " ".join(cmd.split())
    return one if len(one) <= 80 else one[:77] + "..."
