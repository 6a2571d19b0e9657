"""``agentcompass`` command line: parse arguments and call the SDK (``agentcompass._sdk``).

Each sub-command is one module of this package with ``INTERMIXED`` (options may come between
positionals), ``add_arguments(parser)`` and ``main(args) -> exit code``; adding one is a line in ``COMMANDS``.
Only argparse is imported at start: a sub-command's module is imported when it is the one being run.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
from types import ModuleType
from typing import NoReturn

from .exits import EXIT_BUDGET, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_TIMEOUT, EXIT_USAGE

# name -> (module, one-line help shown by `agentcompass --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("agentcompass._cli.run", "run one evaluation request (default: demo oracle none on local)"),
    "config": ("agentcompass._cli.config", "print the resolved config (secrets redacted); runs nothing"),
    "launch": ("agentcompass._cli.launch", "run several named requests from a YAML/JSON orchestration file"),
    "cleanup": ("agentcompass._cli.cleanup", "remove environments left behind by killed runs"),
    "export": ("agentcompass._cli.export", "write a run directory in another tool's layout (harbor: a Harbor job)"),
    "images": ("agentcompass._cli.images", "docker images: build-base builds the offline base image"),
    "compare": ("agentcompass._cli.compare", "is run B better than A? paired comparison of run directories"),
    "analyze": ("agentcompass._cli.analyze", "write analysis.json / analysis.md for an existing run directory"),
    "view": ("agentcompass._cli.view", "browse runs, tasks and trajectories in a local web page (read-only)"),
    "report": ("agentcompass._cli.report", "write a run's Run and Attempt views as one self-contained HTML file"),
    "gateway": ("agentcompass._cli.gateway", "serve the model gateway in the foreground for any client (one model)"),
    "cache": ("agentcompass._cli.cache", "the model-response cache: stats, prune, clear (docs/cache.md)"),
    "list": ("agentcompass._cli.list", "list benchmarks | harnesses | environments | models, or a benchmark's tasks"),
    "audit": ("agentcompass._cli.audit", "run oracle N times and nop once on every task; report broken tasks"),
    "scan": ("agentcompass._cli.scan", "scan a run directory's attempts for reward hacking (docs/integrity.md)"),
    "schema": ("agentcompass._cli.schema", "the JSON Schema of result.json | a results row | summary.json | run.json"),
}


class Parser(argparse.ArgumentParser):
    """An argument error is one line naming the problem and where help is, not the whole usage."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _version() -> str:
    from agentcompass import __version__  # the one source (pyproject.toml reads it too)

    return __version__


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata costs ~20 ms)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        print(f"agentcompass {_version()}")  # on stdout, as argparse's own version action
        parser.exit()


def _top_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="agentcompass", description="Evaluate LLM agents on agentic benchmarks.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, text) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    return parser


def command_parser(name: str) -> tuple[ModuleType, argparse.ArgumentParser]:
    """The module of sub-command ``name`` and its parser."""
    module = importlib.import_module(COMMANDS[name][0])
    parser = Parser(prog=f"agentcompass {name}", description=COMMANDS[name][1])
    module.add_arguments(parser)
    return module, parser


def entry() -> NoReturn:
    """The ``agentcompass`` program (``python -m agentcompass`` too): :func:`main`, then the process ends the way
    a normal exit does (exit handlers run, the log flushed, standard streams flushed) but without freeing every
    object of the interpreter one by one, which takes about 0.1 s after a run. When a thread that is not a
    daemon still runs, the exit is the normal one (it is waited for)."""
    code = main()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: what a normal exit would report is moot
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        top = _top_parser()
        if not argv:
            top.print_help()
            return EXIT_USAGE
        top.parse_args(argv)  # --help, or an unknown command: argparse prints and exits
        return EXIT_USAGE
    module, parser = command_parser(argv[0])
    args = parser.parse_intermixed_args(argv[1:]) if module.INTERMIXED else parser.parse_args(argv[1:])
    from agentcompass import _sdk

    with _sdk.sigterm_as_interrupt() as term:
        try:
            return _guarded(module, args, parser)
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (Slurm, Kubernetes, systemd, timeout)
            return _interrupted(argv, args, term.received)


def _interrupted(argv: list[str], args: argparse.Namespace, terminated: bool) -> int:
    from .interrupt import resume_command

    what = "terminated (SIGTERM)" if terminated else "interrupted"
    print(f"agentcompass: {what}; finished results are kept", file=sys.stderr)
    resume = resume_command(argv, args)
    if resume:
        print(f"agentcompass: resume with: {resume}", file=sys.stderr)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def _guarded(module: ModuleType, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the sub-command; map errors to exit codes with one line (a traceback only with --log-level DEBUG)."""
    from agentcompass.errors import (
        AgentCompassError,
        BudgetExhaustedError,
        ConfigError,
        EvaluationFailedError,
        RunTimeoutError,
    )

    from .options import UsageError

    debug = getattr(args, "log_level", None) == "DEBUG"
    try:
        return module.main(args)
    except UsageError as exc:
        parser.error(str(exc))
    except ConfigError as exc:
        return _report(exc, EXIT_USAGE, debug)
    except RunTimeoutError as exc:
        _print_result(getattr(exc, "result", None))
        return _report(exc, EXIT_TIMEOUT, debug)
    except EvaluationFailedError as exc:
        _print_result(getattr(exc, "result", None))
        return _report(exc, EXIT_FAILED, debug)
    except BudgetExhaustedError as exc:
        _print_result(getattr(exc, "result", None))
        return _report(exc, EXIT_BUDGET, debug)
    except AgentCompassError as exc:
        return _report(exc, EXIT_FAILED, debug)
    except Exception as exc:  # an unexpected crash: one line unless --log-level DEBUG
        return _report(exc, EXIT_FAILED, debug)
    return EXIT_USAGE


def _report(exc: BaseException, code: int, debug: bool) -> int:
    from agentcompass import _sdk
    from agentcompass.errors import ConfigError

    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
        for line in exc.details if isinstance(exc, ConfigError) else ():  # every problem, when it names the first
            print(f"agentcompass: problem: {_sdk.error_message(Exception(line))}", file=sys.stderr)
    print(f"agentcompass: error: {_sdk.error_message(exc)}", file=sys.stderr)
    return code


def _print_result(result: object) -> None:
    if isinstance(result, dict) and result:
        from agentcompass import _sdk

        print(_sdk.format_result(result))
