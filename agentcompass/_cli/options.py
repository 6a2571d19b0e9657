"""Argument definitions and their mapping to SDK keywords (the reference page's tables)."""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class UsageError(Exception):
    """A command-line value that cannot be parsed (argparse prints usage and exits 2)."""


def log_level(value: str) -> str:
    upper = value.upper()
    if upper not in LEVELS:
        raise argparse.ArgumentTypeError(f"invalid level {value!r}; choose from {', '.join(LEVELS)}")
    return upper


def json_object(flag: str) -> Callable[[str], dict[str, Any]]:
    def parse(value: str) -> dict[str, Any]:
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"{flag}: invalid JSON ({exc.msg} at char {exc.pos}): {value!r}")
        if not isinstance(data, dict):
            raise argparse.ArgumentTypeError(f"{flag}: expected a JSON object, got {type(data).__name__}")
        return data
    return parse


def json_string_list(flag: str) -> Callable[[str], list[str]]:
    def parse(value: str) -> list[str]:
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"{flag}: invalid JSON ({exc.msg}): {value!r}")
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise argparse.ArgumentTypeError(f"{flag}: expected a JSON array of strings, got {value!r}")
        return data
    return parse


def keyed(flag: str, cast: Callable[[str], Any]) -> Callable[[str], tuple[str, Any]]:
    def parse(value: str) -> tuple[str, Any]:
        key, sep, raw = value.partition("=")
        try:
            if not sep or not key:
                raise ValueError
            return key, cast(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag}: expected PROVIDER=VALUE ({cast.__name__}), got {value!r}")
    return parse


def protocol(value: str) -> str | list[str]:
    if value.startswith("["):
        return json_string_list("--model-api-protocol")(value)
    return value.split(",") if "," in value else value


def positive_number(value: str) -> int | float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}")
    return int(number) if number.is_integer() else number


def add_shared_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", dest="config_path", action="append", default=None, metavar="PATH",
                   help="YAML config file, deep-merged in order (repeatable)")
    p.add_argument("--task-concurrency", type=int, default=None, metavar="N")
    p.add_argument("--results-dir", default=None, metavar="PATH")
    p.add_argument("--data-dir", default=None, metavar="PATH")
    p.add_argument("--timeout-seconds", type=positive_number, default=None, metavar="SECONDS")
    p.add_argument("--provider-limit", dest="provider_limits", action="append", default=None,
                   type=keyed("--provider-limit", int), metavar="PROVIDER=N")
    p.add_argument("--env-open-qps", dest="env_open_qps", action="append", default=None,
                   type=keyed("--env-open-qps", float), metavar="PROVIDER=QPS")
    p.add_argument("--progress", choices=("auto", "plain", "none"), default=None)
    p.add_argument("--log-level", type=log_level, default=None)
    p.add_argument("--file-log-level", type=log_level, default=None)
    p.add_argument("--auto-install-dependencies", action="store_true", default=None)


def add_request_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("args", nargs="*", metavar="BENCHMARK HARNESS MODEL [key=value ...]",
                   help="component ids (default: demo oracle none), then Hydra-style overrides")
    p.add_argument("--benchmark-params", type=json_object("--benchmark-params"), default=None, metavar="JSON")
    p.add_argument("--harness-params", type=json_object("--harness-params"), default=None, metavar="JSON")
    p.add_argument("--model-base-url", default=None, metavar="URL")
    p.add_argument("--model-api-key", default=None, metavar="KEY")
    p.add_argument("--model-api-protocol", type=protocol, default=None, metavar="PROTOCOL")
    p.add_argument("--model-params", type=json_object("--model-params"), default=None, metavar="JSON")
    p.add_argument("--env", dest="environment", default=None, metavar="ID")
    p.add_argument("--env-params", dest="environment_params", type=json_object("--env-params"), default=None,
                   metavar="JSON")
    p.add_argument("--execution-params", type=json_object("--execution-params"), default=None, metavar="JSON")
    p.add_argument("--max-retries", type=int, default=None, metavar="N")
    p.add_argument("--retry-pattern-list", type=json_string_list("--retry-pattern-list"), default=None,
                   metavar="JSON")
    p.add_argument("--recipe", dest="enabled_recipes", action="append", default=None, metavar="ID")
    p.add_argument("--recipe-dir", dest="recipe_dirs", action="append", default=None, metavar="PATH")
    p.add_argument("--run-name", default=None)
    p.add_argument("--run-id", default=None)
    p.add_argument("--reuse", nargs="?", const=True, default=None, metavar="RUN_ID")
    p.add_argument("--no-checkpoint-resume", dest="checkpoint_resume", action="store_false", default=None)
    p.add_argument("--keep-environment", action="store_true", default=None)
    p.add_argument("--enable-analysis", action="store_true", default=None)
    p.add_argument("--analysis-params", type=json_object("--analysis-params"), default=None, metavar="JSON")


def add_launch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("orchestration", metavar="ORCHESTRATION_PATH")
    add_shared_arguments(p)
    p.add_argument("--cleanup-grace-seconds", type=positive_number, default=None, metavar="SECONDS")
    p.add_argument("--run-id", default=None)
    p.add_argument("--reuse", action="store_true", default=None)
    p.add_argument("--dry-run", action="store_true")


def split_positionals(values: list[str]) -> tuple[list[str], list[str]]:
    positionals = [v for v in values if "=" not in v]
    overrides = [v for v in values if "=" in v]
    if len(positionals) > 3:
        raise UsageError(f"at most 3 positional arguments (BENCHMARK HARNESS MODEL), got {positionals}")
    return positionals, overrides


_PASS_THROUGH = ("config_path", "task_concurrency", "results_dir", "data_dir", "timeout_seconds", "progress",
                 "log_level", "file_log_level", "auto_install_dependencies", "benchmark_params", "harness_params",
                 "model_base_url", "model_api_key", "model_api_protocol", "model_params", "environment",
                 "environment_params", "execution_params", "max_retries", "retry_pattern_list",
                 "enabled_recipes", "recipe_dirs", "run_name", "run_id", "checkpoint_resume", "keep_environment",
                 "enable_analysis", "analysis_params")


def request_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """SDK keywords for ``run`` / ``config`` (None means: not given on the command line)."""
    positionals, overrides = split_positionals(args.args)
    kw: dict[str, Any] = {k: getattr(args, k) for k in _PASS_THROUGH if getattr(args, k, None) is not None}
    for key, value in zip(("benchmark", "harness", "model"), positionals):
        kw[key] = value
    for key in ("provider_limits", "env_open_qps"):
        if getattr(args, key):
            kw[key] = dict(getattr(args, key))
    if args.reuse is not None:
        kw["reuse"] = True
        if isinstance(args.reuse, str):
            kw["reuse_run_id"] = args.reuse
    kw["overrides"] = overrides
    return kw
