"""The viewer's entry points: a read-only local server over run directories, and the static report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcompass._view.payloads import ReportWritten


def serve_view(paths: list[str], *, host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the runs under ``paths`` until interrupted (prints the URL; warns when not bound to loopback)."""
    from agentcompass._view.discover import check_roots, find_runs
    from agentcompass._view.server import ViewServer

    roots = check_roots(paths)
    server = ViewServer(roots, host=host, port=port)
    n = len(find_runs(roots))
    if not server.httpd.loopback:
        print(
            f"agentcompass view: warning: bound to {host}; anyone who can reach it can read these runs", file=sys.stderr
        )
    print(f"agentcompass view: {n} run(s) under {', '.join(map(str, roots))}\n{server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


def write_report(
    run_dir: str | Path | list[str | Path], output: str | Path = "report.html", *, max_attempt_kb: int | None = None
) -> ReportWritten:
    """Write ``run_dir``'s Run and Attempt views as one self-contained HTML file; returns its path and size. With
    a list of run directories (of one benchmark) the file also holds the Runs list and every pair's Compare page,
    with the numbers of :func:`compare_runs`."""
    from agentcompass._view.report import DEFAULT_ATTEMPT_KB
    from agentcompass._view.report import write_report as _write

    return _write(run_dir, output, DEFAULT_ATTEMPT_KB if max_attempt_kb is None else max_attempt_kb)
