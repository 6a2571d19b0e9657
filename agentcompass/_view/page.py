"""The single HTML page of the viewer: the shipped CSS and JS inlined, plus a boot object (JSON).

The same page is served by ``agentcompass view`` (boot ``{"mode": "server"}``; data comes from ``/api``) and
written by ``agentcompass report`` (boot ``{"mode": "report", ...}`` carrying the run's data).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

SCRIPTS = (
    "util.js",
    "data.js",
    "diff.js",
    "charts.js",
    "traj_msa.js",
    "traj_atif.js",
    "traj.js",
    "view_runs.js",
    "integrity.js",
    "view_run.js",
    "view_calls.js",
    "view_conversation.js",
    "view_verdict.js",
    "view_attempt.js",
    "view_compare.js",
    "app.js",
)
CSP_REPORT = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
CSP_SERVER = CSP_REPORT.replace("img-src data:", "img-src data:; connect-src 'self'")


def asset(name: str) -> str:
    return resources.files("agentcompass._view").joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(obj: Any) -> str:
    """JSON safe inside a <script> element: ``<`` is escaped, so no ``</script>`` can close it early."""
    return json.dumps(obj, separators=(",", ":"), default=str).replace("<", "\\u003c")


def render(boot: Mapping[str, object], title: str = "agentcompass", csp: str = CSP_SERVER) -> str:
    scripts = "\n".join(f"<script>\n{asset(name)}\n</script>" for name in SCRIPTS)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_escape(title)}</title>\n<style>\n{asset('app.css')}\n</style>\n</head>\n<body>\n"
        '<header id="top"><a href="#/" class="brand">agentcompass</a><nav id="crumbs"></nav>'
        '<span id="live"></span></header>\n<main id="main"><p class="muted">Loading...</p></main>\n'
        f'<script id="ac-boot" type="application/json">{embed_json(boot)}</script>\n{scripts}\n'
        "</body>\n</html>\n"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
