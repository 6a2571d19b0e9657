"""mini-swe-agent's ``Environment`` protocol backed by an agentcompass :class:`~agentcompass.interfaces.Environment`
(local, docker, or any other provider).

Each action runs as mini-swe-agent runs it: a new process, ``interpreter + [command]`` (the configs say
``bash -c``), in ``cwd``, with the config's ``env`` (and ``forward_env`` from the host), stderr merged into
stdout, killed with its whole process tree after ``timeout`` seconds. The output dict is the package's:
``{output, returncode, exception_info}``, and a timeout gives return code -1 with the partial output and the
exception text of ``subprocess.TimeoutExpired``, as the package's environments report it. The submission
check (``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` on the first output line, exit code 0 -> ``Submitted``) is
the package's own ``_check_finished``, inherited from its ``LocalEnvironment``.

An agentcompass error from the environment (a sandbox that died) ends the attempt as an error of its class
instead of being shown to the model; other exceptions become the package's error observation.
"""

from __future__ import annotations

import os
import platform
import subprocess
from typing import Any, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import AgentCompassError, ConfigError
from agentcompass.interfaces import Environment, ExecResult

from .bridge import Cancelled, LoopBridge

# how the package's environments run a command when the config names no interpreter
DEFAULT_INTERPRETER = {"local": ["/bin/sh", "-c"]}  # subprocess.Popen(shell=True)
FALLBACK_INTERPRETER = ["bash", "-lc"]  # DockerEnvironmentConfig.interpreter
# stderr into stdout for the whole command, as subprocess.run(stderr=STDOUT) does; the command is untouched
MERGE_STDERR = ["/bin/sh", "-c", 'exec "$@" 2>&1', "sh"]
# environment-section keys that start mini-swe-agent's own container: the agentcompass environment replaces it
CONTAINER_KEYS = {"image", "executable", "run_args", "container_timeout", "pull_timeout", "container_id"}


class AdapterEnvironmentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cwd: str = ""
    env: dict[str, str] = {}
    forward_env: list[str] = []
    timeout: int = 30
    interpreter: list[str] = FALLBACK_INTERPRETER


def environment_settings(
    section: dict[str, Any], *, cwd: str, timeout: int | None, task_env: dict[str, str] | None
) -> tuple[str, dict[str, Any]]:
    """(environment_class, the section for :class:`ClientEnvironment`) from the config's environment section."""
    settings = dict(section)
    env_class = str(settings.pop("environment_class", "docker"))
    bad = sorted(CONTAINER_KEYS & set(settings))
    if bad:
        raise ConfigError(
            f"harness mini_swe_agent: environment.{bad[0]} configures mini-swe-agent's own "
            f"container; here the environment is agentcompass's (--env, --env-params)"
        )
    settings.setdefault("interpreter", DEFAULT_INTERPRETER.get(env_class, FALLBACK_INTERPRETER))
    settings["cwd"] = cwd
    if timeout is not None:
        settings["timeout"] = timeout
    if task_env:
        settings["env"] = {**task_env, **(settings.get("env") or {})}
    return env_class, settings


_CLASS: type | None = None


def environment_class() -> type:
    """``ClientEnvironment``: :class:`_Methods` over the package's ``LocalEnvironment`` (made on first use, so
    that importing this module does not import the package)."""
    global _CLASS
    if _CLASS is None:
        from minisweagent.environments.local import LocalEnvironment

        _CLASS = type(
            "ClientEnvironment",
            (_Methods, LocalEnvironment),
            {"__module__": __name__, "__qualname__": "ClientEnvironment", "__doc__": _Methods.__doc__},
        )
    return _CLASS


class ExecutionOutput(TypedDict):
    """What a mini-swe-agent environment's ``execute`` returns (``LocalEnvironment.execute``'s keys)."""

    output: str
    returncode: int
    exception_info: str
    extra: NotRequired[dict[str, str]]


class _Methods:
    """mini-swe-agent's LocalEnvironment with ``execute`` running in an agentcompass Environment."""

    def __init__(self, sandbox: Environment, bridge: LoopBridge, /, **kwargs: Any) -> None:
        super().__init__(config_class=AdapterEnvironmentConfig, **kwargs)  # type: ignore[call-arg]
        self.sandbox, self.bridge = sandbox, bridge

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> ExecutionOutput:
        command = action.get("command", "")
        cwd = cwd or self.config.cwd or self.sandbox.workdir
        limit = timeout or self.config.timeout
        variables = {k: v for k in self.config.forward_env if (v := os.getenv(k)) is not None}
        variables.update(self.config.env)
        argv = [*MERGE_STDERR, *self.config.interpreter, command]
        try:
            result: ExecResult = self.bridge.run(self.sandbox.exec(argv, timeout=limit, cwd=cwd, env=variables))
        except (Cancelled, AgentCompassError):
            raise
        except Exception as e:
            output = _error_output(e, getattr(e, "output", None))
        else:
            if result.timed_out:
                output = _error_output(subprocess.TimeoutExpired(command, limit), result.output)
            else:
                output = {"output": result.output, "returncode": result.exit_code, "exception_info": ""}
        self._check_finished(output)  # type: ignore[attr-defined]
        return output

    def get_template_vars(self, **kwargs: Any) -> dict[str, object]:
        from minisweagent.utils.serialize import recursive_merge

        return recursive_merge(self.config.model_dump(), platform.uname()._asdict(), kwargs)


def _error_output(e: BaseException, raw: Any) -> ExecutionOutput:
    raw = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else (raw or "")
    return {
        "output": raw,
        "returncode": -1,
        "exception_info": f"An error occurred while executing the command: {e}",
        "extra": {"exception_type": type(e).__name__, "exception": str(e)},
    }
