"""A SWE-bench Multilingual-format instance of a Go repository, made on the fly, and its image.

The row is gin-gonic/gin's pair ``4003`` of the official table (test command ``go test . -v -run
"TestMethodNotAllowedNoRoute"``), over a small module whose router answers 404 where 405 is due; the gold patch
fixes it, the test patch adds the failing test. ``build_go_image`` builds the instance image FROM the local base
image with Debian's Go toolchain (no registry is needed; Debian's mirror is).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.benchmarks.swebench.fixture import BASE_IMAGE, _diff_of, git

INSTANCE_ID = "gin-gonic__gin-4003"
IMAGE_TAG = "agentcompass-test/swebench-go:1"
OFFICIAL_IMAGE = "swebench/sweb.eval.x86_64.gin-gonic_1776_gin-4003:latest"

ROUTER = """package gin

// Status is the HTTP status the router answers for a method on a path.
func Status(method, path string, routes map[string]string) int {
\tallowed, ok := routes[path]
\tif !ok {
\t\treturn 404
\t}
\tif allowed != method {
\t\treturn 404
\t}
\treturn 200
}
"""
GOLD_ROUTER = ROUTER.replace("\tif allowed != method {\n\t\treturn 404", "\tif allowed != method {\n\t\treturn 405")
TESTS = """package gin

import "testing"

func TestMethodNotAllowedNoRouteKeepsOK(t *testing.T) {
\tif Status("GET", "/a", map[string]string{"/a": "GET"}) != 200 {
\t\tt.Fatal("GET /a")
\t}
}

func TestMethodNotAllowedNoRouteMissing(t *testing.T) {
\tif Status("GET", "/b", map[string]string{"/a": "GET"}) != 404 {
\t\tt.Fatal("GET /b")
\t}
}
"""
TESTS_ADDED = (
    TESTS
    + """
func TestMethodNotAllowedNoRoute(t *testing.T) {
\tif got := Status("POST", "/a", map[string]string{"/a": "GET"}); got != 405 {
\t\tt.Fatalf("POST /a: %d", got)
\t}
}
"""
)


def make_go_repo(root: Path) -> tuple[Path, dict[str, Any]]:
    repo = root / "gin"
    repo.mkdir(parents=True)
    (repo / "go.mod").write_text("module example.com/gin\n\ngo 1.19\n")
    (repo / "router.go").write_text(ROUTER)
    (repo / "router_test.go").write_text(TESTS)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    row = {
        "repo": "gin-gonic/gin",
        "instance_id": INSTANCE_ID,
        "base_commit": base,
        "patch": _diff_of(repo, "router.go", GOLD_ROUTER),
        "test_patch": _diff_of(repo, "router_test.go", TESTS_ADDED),
        "problem_statement": "A request whose method a route does not allow gets 404 instead of 405.",
        "hints_text": "",
        "created_at": "2024-06-01T00:00:00Z",
        "version": "4003",
        "FAIL_TO_PASS": json.dumps(["TestMethodNotAllowedNoRoute"]),
        "PASS_TO_PASS": json.dumps(["TestMethodNotAllowedNoRouteKeepsOK", "TestMethodNotAllowedNoRouteMissing"]),
        "environment_setup_commit": base,
    }
    return repo, row


def write_hub_layout(rows: list[dict[str, Any]], folder: Path) -> Path:
    """``folder/data/test-00000-of-00001.parquet``, as the hub dataset is laid out."""
    from tests.benchmarks.swebench.fixture import write_parquet

    return write_parquet(rows, folder / "data" / "test-00000-of-00001.parquet")


def build_go_image(repo: Path, tag: str = IMAGE_TAG) -> str:
    ctx = repo.parent / "go-image"
    shutil.rmtree(ctx, ignore_errors=True)
    ctx.mkdir()
    shutil.copytree(repo, ctx / "testbed")
    (ctx / "Dockerfile").write_text(
        f"FROM {BASE_IMAGE}\n"
        "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
        "golang-go >/dev/null && rm -rf /var/lib/apt/lists/*\n"
        "ENV GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local\n"
        "COPY testbed /testbed\n"
        "WORKDIR /testbed\n"
    )
    subprocess.run(
        ["docker", "build", "-q", "--label", "agentcompass.test=1", "-t", tag, str(ctx)],
        check=True,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    return tag
