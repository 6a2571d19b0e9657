"""A key passed to real runs never appears in anything the viewer serves or the report embeds, and the server
adds no environment value: every route and every file of every run is crawled over HTTP."""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import urllib.request
from urllib.parse import urlencode

from agentcompass._view import serve, write_report
from tests._view.runs import KEY

ENV_SECRET = "sk-ENV-viewer-never-7781"


def fetch(srv, route: str, **params) -> bytes:
    with urllib.request.urlopen(f"{srv.url}{route}?{urlencode(params)}", timeout=30) as res:
        assert res.status == 200, route
        return res.read()


def crawl(srv) -> list[bytes]:
    """Every page and API response, and every file the API lists, of every run."""
    bodies = [fetch(srv, ""), fetch(srv, "api/runs"), fetch(srv, "api/stamp")]
    runs = json.loads(bodies[1])["runs"]
    for run in runs:
        key = run["key"]
        detail = fetch(srv, "api/run", run=key)
        bodies += [detail, fetch(srv, "api/stamp", run=key)]
        bodies += [fetch(srv, "api/file", run=key, path=name) for name in json.loads(detail)["files"]]
        tasks = fetch(srv, "api/tasks", run=key)
        bodies.append(tasks)
        for task in json.loads(tasks)["tasks"]:
            listing = fetch(srv, "api/task", run=key, dir=task["dir"])
            bodies.append(listing)
            for att in json.loads(listing)["attempts"]:
                body = fetch(srv, "api/attempt", run=key, path=att["path"])
                bodies.append(body)
                bodies += [
                    fetch(srv, "api/file", run=key, path=f"{att['path']}/{f['name']}")
                    for f in json.loads(body)["files"]
                ]
    for a, b in itertools.permutations([r["key"] for r in runs], 2):
        bodies.append(fetch(srv, "api/compare", a=a, b=b))
    return bodies


def test_no_key_in_any_response_or_report(view_runs, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_SECRET)
    monkeypatch.setenv("AGENTCOMPASS_VIEW_SECRET", ENV_SECRET)
    with serve([str(view_runs.results)]) as srv:
        bodies = crawl(srv)
    blob = b"\n".join(bodies)
    assert len(bodies) > 100 and b"scripted-msa" in blob and b"calc__calc-1.traj.json" in blob
    assert b'"trajectory_format": "mini-swe-agent-1.1"' in blob and b"ATIF-v1.2" in blob  # trajectories read
    for secret in (KEY, ENV_SECRET):
        assert secret.encode() not in blob, secret
    for name in ("terminus2", "swebench"):
        out = tmp_path / f"{name}.html"
        write_report(view_runs.dirs[name], out)
        html = out.read_text()
        boot = json.loads(html.split('type="application/json">', 1)[1].split("</script>", 1)[0])
        decoded = [gzip.decompress(base64.b64decode(b)).decode() for b in boot["attempts"].values()]
        assert decoded and all('"trajectory"' in d for d in decoded)
        for secret in (KEY, ENV_SECRET):
            assert secret not in html and not any(secret in d for d in decoded), (name, secret)
