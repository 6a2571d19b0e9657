"""``agentcompass`` command line: run, launch, config, cleanup, analyze, export. Only argparse is imported at start."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from . import options

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 124, 130


def _request_parser(p: argparse.ArgumentParser, multirun: bool) -> argparse.ArgumentParser:
    options.add_request_arguments(p)
    options.add_shared_arguments(p)
    if multirun:
        p.add_argument("-m", "--multirun", action="store_true", help="sweep comma-separated override values")
    return p


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentcompass", description="Evaluate LLM agents on agentic benchmarks.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _request_parser(sub.add_parser("run", help="run one evaluation request (default: demo oracle none on local)"),
                    True)
    _request_parser(sub.add_parser("config", help="print the resolved config (secrets redacted); runs nothing"),
                    False)
    launch = sub.add_parser("launch", help="run several named requests from a YAML/JSON orchestration file")
    options.add_launch_arguments(launch)
    cleanup = sub.add_parser("cleanup", help="remove environments left behind by killed runs")
    cleanup.add_argument("--run-id", default=None, help="only this run's environments")
    cleanup.add_argument("--env", default="docker", help="environment provider id (default: docker)")
    cleanup.add_argument("--log-level", default="INFO", type=options.log_level)
    export = sub.add_parser("export", help="write a run directory in another tool's layout (harbor: a Harbor job)")
    export.add_argument("format", choices=["harbor"], help="harbor: Harbor's job layout (harbor view OUT_DIR)")
    export.add_argument("run_dir", metavar="RUN_DIR")
    export.add_argument("out_dir", metavar="OUT_DIR")
    export.add_argument("--log-level", default="INFO", type=options.log_level)
    analyze = sub.add_parser("analyze", help="write analysis.json / analysis.md for an existing run directory")
    analyze.add_argument("run_dir", metavar="RUN_DIR")
    analyze.add_argument("--analysis-params", type=options.json_object("--analysis-params"), default=None)
    analyze.add_argument("--log-level", default="INFO", type=options.log_level)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["run"], ["config"]):
        # options may come between the positionals: parse the sub-command on its own, intermixed
        sub = _request_parser(argparse.ArgumentParser(prog=f"agentcompass {argv[0]}"), argv[0] == "run")
        args = sub.parse_intermixed_args(argv[1:])
        args.command = argv[0]
    else:
        args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    handler: Callable[[argparse.Namespace], int] = getattr(sys.modules[__name__], f"_cmd_{args.command}")
    return _guarded(handler, args, parser)


def _guarded(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace,
             parser: argparse.ArgumentParser) -> int:
    debug = getattr(args, "log_level", "INFO") == "DEBUG"
    from agentcompass.errors import (AgentCompassError, ConfigError, EvaluationFailedError, RunTimeoutError)

    try:
        return handler(args)
    except options.UsageError as exc:
        parser.error(str(exc))
    except ConfigError as exc:
        return _report(exc, EXIT_USAGE, debug)
    except RunTimeoutError as exc:
        _print_result(getattr(exc, "result", None))
        return _report(exc, EXIT_TIMEOUT, debug)
    except EvaluationFailedError as exc:
        _print_result(getattr(exc, "result", None))
        return _report(exc, EXIT_FAILED, debug)
    except KeyboardInterrupt:
        print("agentcompass: interrupted; finished results are kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    except AgentCompassError as exc:
        return _report(exc, EXIT_FAILED, debug)
    except Exception as exc:  # an unexpected crash: one line unless --log-level DEBUG
        return _report(exc, EXIT_FAILED, debug)
    return EXIT_USAGE


def _report(exc: BaseException, code: int, debug: bool) -> int:
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    from agentcompass._config.redact import scrub

    print(f"agentcompass: error: {scrub(str(exc)) or type(exc).__name__}", file=sys.stderr)
    return code


def _print_result(result: dict[str, Any] | None) -> None:
    if result:
        from agentcompass._orchestrator.metrics import format_table

        print(format_table(result))


def _cmd_run(args: argparse.Namespace) -> int:
    kwargs = options.request_kwargs(args)
    if args.multirun:
        from agentcompass._cli.sweep import run_sweep

        return run_sweep(kwargs)
    from agentcompass._sdk import run_evaluation

    result = run_evaluation(**kwargs)
    _print_result(result)
    return EXIT_FAILED if result["metrics"]["n_errors"] else EXIT_OK


def _cmd_config(args: argparse.Namespace) -> int:
    import yaml

    from agentcompass._config.redact import redact
    from agentcompass._sdk import compose_from_kwargs

    resolved = compose_from_kwargs(options.request_kwargs(args))
    print(yaml.safe_dump(redact(resolved.data), sort_keys=False), end="")
    return EXIT_OK


def _cmd_launch(args: argparse.Namespace) -> int:
    from agentcompass._cli.launch import run_launch

    return run_launch(args)


def _cmd_cleanup(args: argparse.Namespace) -> int:
    import asyncio

    from agentcompass._config import registry
    from agentcompass.interfaces import ComponentContext
    from agentcompass._orchestrator.request import default_data_dir

    registry.check_id("environment", args.env)
    from agentcompass._config.compose import ComposeInput, compose_request

    resolved = compose_request(ComposeInput(choices={"environment": args.env}))
    provider = registry.build("environment", resolved.data["environment"], ComponentContext(default_data_dir()))

    async def go() -> int:
        try:
            return await provider.cleanup(args.run_id)
        finally:
            await provider.aclose()

    removed = asyncio.run(go())
    print(f"removed {removed} {args.env} environment(s)" + (f" of run {args.run_id}" if args.run_id else ""))
    return EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    from agentcompass._export.harbor import export_harbor

    print(f"harbor job: {export_harbor(args.run_dir, args.out_dir)}")
    return EXIT_OK


def _cmd_analyze(args: argparse.Namespace) -> int:
    """Analyse an existing run directory; the judge runs only when --analysis-params names a model."""
    import asyncio
    from pathlib import Path

    from agentcompass._analysis import analyze_run, parse_params, update_summary
    from agentcompass._orchestrator.logs import console_logging

    params = parse_params(args.analysis_params)
    with console_logging(args.log_level):
        analysis = asyncio.run(analyze_run(args.run_dir, params))
    run_dir = Path(analysis["run"]["run_dir"])
    update_summary(run_dir, analysis)
    b = analysis["breakdown"]
    print(", ".join(f"{k}={v}" for k, v in b["outcomes"].items() if v) or "no tasks")
    if analysis.get("judge"):
        j = analysis["judge"]
        print(f"judge: {j['n_judged']} labelled, cost_usd={j['cost_usd']:.6f}: "
              + ", ".join(f"{k}={v}" for k, v in j["categories"].items()))
    print(f"analysis: {run_dir / 'analysis.json'}\n          {run_dir / 'analysis.md'}")
    return EXIT_OK
