"""``agentcompass launch FILE`` and ``agentcompass run ... -m`` (both Hydra multiruns on one attempt pool)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT = 0, 1, 2, 124


def _shared(args: argparse.Namespace) -> dict[str, Any]:
    keys = ("task_concurrency", "results_dir", "data_dir", "timeout_seconds", "progress", "log_level",
            "file_log_level", "auto_install_dependencies", "cleanup_grace_seconds")
    out = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    for key in ("provider_limits", "env_open_qps"):
        if getattr(args, key, None):
            out[key] = dict(getattr(args, key))
    return out


def _apply_cli_overrides(spec: Any, args: argparse.Namespace) -> Any:
    if args.run_id is not None:
        spec.defaults.output.run_id = args.run_id
        for req in spec.requests:
            req.output.run_id = args.run_id
    if args.reuse:
        spec.defaults.runtime.reuse = True
    return spec


def run_launch(args: argparse.Namespace) -> int:
    from agentcompass._launch import async_launch, load_spec_file, resolve_orchestration

    spec = _apply_cli_overrides(load_spec_file(args.orchestration), args)
    shared = _shared(args)
    orch = resolve_orchestration(spec, config_path=args.config_path, shared=shared)
    if args.dry_run:
        return dry_run(orch)
    import asyncio

    from agentcompass.errors import RunTimeoutError

    try:
        result = asyncio.run(async_launch(orch))
    except RunTimeoutError as exc:
        report(exc.result)
        print(f"agentcompass: error: {exc}", file=sys.stderr)
        return EXIT_TIMEOUT
    return report(result)


def dry_run(orch: Any) -> int:
    """Validate every request, print its resolved config, task count and output directory; create nothing."""
    import yaml

    from agentcompass._config.redact import redact
    from agentcompass._orchestrator.pool import Pool
    from agentcompass._orchestrator.progress import Progress
    from agentcompass._orchestrator.request import RequestRun

    ok = True
    for job in orch.jobs:
        print(f"--- request {job.name}")
        if job.error is not None:
            ok = False
            print(f"error: {job.error}")
            continue
        run = RequestRun(job.resolved, job.name, Pool(1), Progress("none", 0))
        try:
            tasks = run.build()
        except Exception as exc:
            ok = False
            print(f"error: {type(exc).__name__}: {exc}")
            continue
        print(f"tasks: {len(tasks)}\noutput: {run.store.run_dir}")
        print(yaml.safe_dump(redact(job.resolved.data), sort_keys=False), end="")
    print(f"--- {len(orch.jobs)} requests, task_concurrency {orch.task_concurrency}: "
          + ("valid" if ok else "INVALID"))
    return EXIT_OK if ok else EXIT_USAGE


def report(result: Any) -> int:
    from agentcompass._orchestrator.metrics import format_table

    for name, outcome in result.requests.items():
        print(f"=== {name}: {outcome.status}" + (f" ({outcome.error})" if outcome.error else ""))
        if outcome.result is not None:
            print(format_table(outcome.result))
    pool = result.pool
    print(f"orchestration {result.name}: {result.status} in {result.duration_s:.1f}s; "
          f"pool {pool.get('size')} slots, max running {pool.get('max_running')}, "
          f"utilisation {pool.get('utilisation')}", file=sys.stderr)
    return EXIT_OK if result.status == "completed" else EXIT_FAILED
