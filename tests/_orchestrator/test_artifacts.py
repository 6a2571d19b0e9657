"""Artifacts (prepare uploads, save within budgets + manifest) in the local and the docker environment."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentcompass._orchestrator.record.artifacts import prepare_artifacts, save_artifacts
from agentcompass.errors import ConfigError
from agentcompass.interfaces import EnvSpec
from tests.environments.docker_support import TEST_LABELS, remove_session_containers, require_engine

SETUP = (
    "mkdir -p /app/out/sub /logs && cd /app/out && printf '%010d' 1 > a.txt && "
    "head -c 5000 /dev/urandom > b.bin && printf '%020d' 2 > c.txt && ln -s a.txt link && "
    "printf '%030d' 3 > sub/d.txt && printf '%040d' 4 > /logs/x.log && printf 'same' > /app/top.txt"
)


def _provider(kind: str, tmp_path: Path):
    if kind == "docker":
        require_engine()
        from agentcompass.environments.docker import DockerConfig, DockerProvider

        return DockerProvider(DockerConfig())
    from agentcompass.environments.local import LocalConfig, LocalProvider

    return LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def in_env(request, tmp_path):
    """``in_env(body)`` runs ``body(env)`` in a fresh environment of the parametrized kind."""

    def run(body):
        async def main():
            provider = _provider(request.param, tmp_path)
            env = await provider.open(EnvSpec(task_id="artifacts", labels=dict(TEST_LABELS)))
            try:
                setup = await env.exec(SETUP.replace("/app", env.path("/app")).replace("/logs", env.path("/logs")))
                assert setup.exit_code == 0, setup
                return await body(env)
            finally:
                await env.close()
                await provider.aclose()

        return asyncio.run(main())

    yield run
    if request.param == "docker":
        remove_session_containers()


def _rows(manifest):
    return [(f["path"], f["status"], f["bytes"]) for f in manifest["files"]]


def test_max_files_and_max_file_bytes(in_env, tmp_path):
    dest = tmp_path / "artifacts"
    manifest = in_env(
        lambda env: save_artifacts(
            env,
            ["out", "/logs/*.log", "nothing/*", "top.txt", "out/a.txt"],
            dest,
            max_files=4,
            max_file_bytes=1000,
            max_total_bytes=10**6,
        )
    )
    assert _rows(manifest) == [
        ("/app/out/a.txt", "saved", 10),
        ("/app/out/b.bin", "truncated", 1000),
        ("/app/out/c.txt", "saved", 20),
        ("/app/out/link", "skipped", 0),
        ("/app/out/sub/d.txt", "saved", 30),
        ("/logs/x.log", "skipped", 0),
        ("/app/top.txt", "skipped", 0),
    ]
    reasons = {f["path"]: f["reason"] for f in manifest["files"]}
    assert "symlink" in reasons["/app/out/link"] and "max_files" in reasons["/logs/x.log"]
    assert "max_file_bytes" in reasons["/app/out/b.bin"]
    assert manifest["totals"] == {"saved": 3, "truncated": 1, "skipped": 3, "bytes": 1060}
    assert [e["pattern"] for e in manifest["errors"]] == ["/app/nothing/*"]
    assert json.loads((dest / "manifest.json").read_text()) == manifest
    assert (dest / "app/out/a.txt").read_text() == "0000000001"
    assert (dest / "app/out/b.bin").stat().st_size == 1000
    assert (dest / "app/out/sub/d.txt").stat().st_size == 30
    assert not (dest / "app/out/link").exists() and not (dest / "logs").exists()
    assert not (dest / "app/top.txt").exists()


def test_max_total_bytes_skips_what_does_not_fit(in_env, tmp_path):
    dest = tmp_path / "artifacts"
    manifest = in_env(
        lambda env: save_artifacts(
            env,
            ["/app/out/*.txt", "/app/out/b.bin", "/logs"],
            dest,
            max_files=100,
            max_file_bytes=1000,
            max_total_bytes=1025,
        )
    )
    # b.bin (1000 bytes once truncated) does not fit; the smaller x.log after it still does
    assert _rows(manifest) == [
        ("/app/out/a.txt", "saved", 10),
        ("/app/out/c.txt", "saved", 20),
        ("/app/out/b.bin", "skipped", 0),
        ("/logs/x.log", "saved", 40),
    ]
    assert "max_total_bytes" in manifest["files"][2]["reason"]
    assert manifest["totals"]["bytes"] == 70 and sorted(p.name for p in dest.rglob("*") if p.is_file()) == [
        "a.txt",
        "c.txt",
        "manifest.json",
        "x.log",
    ]


def test_prepare_uploads_files_and_directories(in_env, tmp_path):
    (tmp_path / "seed" / "nested").mkdir(parents=True)
    (tmp_path / "seed" / "nested" / "n.txt").write_text("nested\n")
    (tmp_path / "one.txt").write_text("one\n")

    async def body(env):
        await prepare_artifacts(
            env,
            [
                {"src": str(tmp_path / "seed"), "dst": "/app/seed"},
                {"src": str(tmp_path / "one.txt"), "dst": "inputs/one.txt"},
            ],
        )
        got = (await env.read_file("/app/seed/nested/n.txt"), await env.read_file("/app/inputs/one.txt"))
        with pytest.raises(ConfigError, match="does not exist"):
            await prepare_artifacts(env, [{"src": str(tmp_path / "missing"), "dst": "/app/x"}])
        return got

    assert in_env(body) == (b"nested\n", b"one\n")
