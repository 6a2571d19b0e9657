"""Browsing run directories: ``agentcompass view`` (a read-only local web server) and ``agentcompass report``
(one self-contained HTML file). See ``docs/viewer.md``.

Nothing is imported here at package import; use :func:`serve` / :func:`write_report`, or the sub-modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .payloads import ReportWritten


def serve(paths: list[str], host: str = "127.0.0.1", port: int = 0) -> Any:
    """A started :class:`~agentcompass._view.server.ViewServer` (a context manager; ``.url``, ``.close()``)."""
    from .discover import check_roots
    from .server import ViewServer

    return ViewServer(check_roots(paths), host=host, port=port).__enter__()


def write_report(run_dir: str | Path, out: str | Path = "report.html", max_attempt_kb: int = 48) -> ReportWritten:
    from .report import write_report as _write

    return _write(run_dir, out, max_attempt_kb)
