"""The front door: every entry point the CLI and users call. The CLI only parses arguments and calls these.

- :func:`run_evaluation` / :func:`async_run_evaluation`: one request;
- :func:`launch` / :func:`async_launch`: several named requests on one attempt pool; :func:`resolve_file`
  (an orchestration file), :func:`dry_run` (preflight), :func:`run_sweep` (``run -m``);
- :func:`render_config` (``agentcompass config``), :func:`cleanup`, :func:`analyze`, :func:`export`,
  :func:`compare_runs` / :func:`format_comparison` (``agentcompass compare``),
  :func:`build_base_image` (``agentcompass images build-base``), :func:`prebuild_images` (``agentcompass images
  prebuild``: every task image on every node), :func:`serve_view` / :func:`write_report`
  (``agentcompass view`` / ``report``), :func:`serve_gateway` (``agentcompass gateway``);
- text for people: :func:`format_result`, :func:`format_orchestration`, :func:`error_message`.

The entry points are ordinary functions; their keywords are the rows of one table derived from the config
schema (:mod:`agentcompass._config.options`), gathered into one typed request (:mod:`.spec`) checked once. Names
are imported on first use, so ``run_evaluation`` does not load the orchestration machinery of ``launch``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the entry points as type checkers see them
    from .audit import audit as audit
    from .catalogue import list_components as list_components
    from .catalogue import list_tasks as list_tasks
    from .comparing import compare_runs as compare_runs
    from .comparing import format_comparison as format_comparison
    from .evaluate import async_run_evaluation as async_run_evaluation
    from .evaluate import run_evaluation as run_evaluation
    from .launching import async_launch as async_launch
    from .launching import launch as launch
    from .scanning import scan_run as scan_run
    from .spec import EvaluationRequest as EvaluationRequest
    from .spec import LaunchSettings as LaunchSettings

_EXPORTS = {
    "run_evaluation": "evaluate",
    "async_run_evaluation": "evaluate",
    "compose_from_kwargs": "evaluate",
    "EvaluationRequest": "spec",
    "LaunchSettings": "spec",
    "launch": "launching",
    "async_launch": "launching",
    "resolve_file": "launching",
    "run_sweep": "launching",
    "dry_run": "dryrun",
    "Preflight": "dryrun",
    "RequestPreflight": "dryrun",
    "render_config": "render",
    "format_result": "render",
    "format_orchestration": "render",
    "error_message": "render",
    "cleanup": "maintenance",
    "analyze": "maintenance",
    "export": "maintenance",
    "compare_runs": "comparing",
    "format_comparison": "comparing",
    "EXPORT_FORMATS": "maintenance",
    "build_base_image": "maintenance",
    "check_analysis_params": "hooks",
    "default_hooks": "hooks",
    "serve_view": "viewing",
    "serve_gateway": "gateway",
    "write_report": "viewing",
    "prebuild_images": "prebuild",
    "format_prebuild": "prebuild",
    "sigterm_as_interrupt": "signals",
    "new_run_id": "evaluate",
    "cache_stats": "cache",
    "cache_prune": "cache",
    "cache_clear": "cache",
    "format_cache_stats": "cache",
    "list_components": "catalogue",
    "list_tasks": "catalogue",
    "benchmarks_table": "catalogue",
    "audit": "audit",
    "scan_run": "scanning",
    "format_scan": "scanning",
    "format_audit": "audit",
    "AuditReport": "audit",
    "audit_exploits": "exploits",
    "format_exploit_audit": "exploits",
    "ExploitAuditReport": "exploits",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
