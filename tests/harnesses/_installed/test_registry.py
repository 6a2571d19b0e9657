"""Fetching a build: an npm registry served over real HTTP on 127.0.0.1 (manifest + tarball), the integrity check,
the atomic unpack into the cache, the one-line errors, and one fetch for concurrent attempts."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agentcompass.errors import DependencyError
from agentcompass.harnesses._installed import delivery, registry


def _tarball(files: dict[str, tuple[bytes, int]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class FakeRegistry:
    """``GET /<name>/<version>`` -> manifest; ``GET /tarballs/<file>`` -> bytes; counts tarball downloads."""

    def __init__(self) -> None:
        self.manifests: dict[str, dict] = {}
        self.blobs: dict[str, bytes] = {}
        self.downloads = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_GET(self) -> None:
                path = self.path.replace("%2F", "/").replace("%2f", "/")
                if path.startswith("/tarballs/") and path[10:] in owner.blobs:
                    owner.downloads += 1
                    body = owner.blobs[path[10:]]
                elif path.lstrip("/") in owner.manifests:
                    body = json.dumps(owner.manifests[path.lstrip("/")]).encode()
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def publish(self, name: str, version: str, blob: bytes, *, integrity: str | None = None) -> None:
        file = f"{name.replace('/', '-')}-{version}.tgz"
        self.blobs[file] = blob
        sri = integrity or "sha512-" + base64.b64encode(hashlib.sha512(blob).digest()).decode()
        dist = {"tarball": f"{self.url}/tarballs/{file}", "integrity": sri, "shasum": hashlib.sha1(blob).hexdigest()}
        self.manifests[f"{name}/{version}"] = {"name": name, "version": version, "dist": dist, "bin": {"x": "x"}}


@pytest.fixture
def npm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRegistry]:
    reg = FakeRegistry()
    reg.thread.start()
    monkeypatch.setenv("AGENTCOMPASS_NPM_REGISTRY", reg.url)
    yield reg
    reg.httpd.shutdown()
    reg.httpd.server_close()


def test_fetch_checks_integrity_and_unpacks(npm: FakeRegistry, tmp_path: Path) -> None:
    npm.publish("@acme/tool-linux-x64", "1.2.3", _tarball({"bin/tool": (b"#!/bin/sh\necho hi\n", 0o755)}))
    part = delivery.npm_part("@acme/tool-linux-x64", "1.2.3")
    record = delivery.ensure_sync(part, tmp_path, auto_install=True, harness="h", platform="linux-x64")
    dest = part.host_dir(tmp_path)
    assert (dest / "bin/tool").read_bytes().startswith(b"#!/bin/sh") and (dest / "bin/tool").stat().st_mode & 0o111
    assert record["hash"].startswith("sha512:") and registry.installed(dest) == record
    # cached: no second download
    delivery.ensure_sync(part, tmp_path, auto_install=True, harness="h", platform="linux-x64")
    assert npm.downloads == 1


def test_a_tampered_tarball_is_refused(npm: FakeRegistry, tmp_path: Path) -> None:
    good = _tarball({"a": (b"good", 0o644)})
    npm.publish("tool", "1.0.0", _tarball({"a": (b"evil", 0o644)}))
    npm.manifests["tool/1.0.0"]["dist"]["integrity"] = (
        "sha512-" + base64.b64encode(hashlib.sha512(good).digest()).decode()
    )
    part = delivery.npm_part("tool", "1.0.0")
    with pytest.raises(DependencyError, match="sha512 is .* the registry says"):
        delivery.ensure_sync(part, tmp_path, auto_install=True, harness="h", platform="linux-x64")
    assert not part.host_dir(tmp_path).exists()  # nothing left in the cache


def test_shasum_only_and_unknown_version(npm: FakeRegistry, tmp_path: Path) -> None:
    blob = _tarball({"a": (b"x", 0o644)})
    npm.publish("old", "0.1.0", blob)
    del npm.manifests["old/0.1.0"]["dist"]["integrity"]
    assert registry.fetch_npm("old", "0.1.0", tmp_path / "old")["hash"] == "sha1:" + hashlib.sha1(blob).hexdigest()
    with pytest.raises(DependencyError, match=r"npm old@9\.9\.9: .* answered HTTP 404 \(no such version\?\)"):
        registry.fetch_npm("old", "9.9.9", tmp_path / "none")


def test_executables_are_marked(npm: FakeRegistry, tmp_path: Path) -> None:
    npm.publish("js", "1.0.0", _tarball({"vendor/rg/x64-linux/rg": (b"\x7fELF", 0o644), "cli.js": (b"", 0o644)}))
    part = delivery.npm_part("js", "1.0.0", executables=("vendor/rg/*/rg",))
    delivery.ensure_sync(part, tmp_path, auto_install=True, harness="h", platform="linux-x64")
    assert (part.host_dir(tmp_path) / "vendor/rg/x64-linux/rg").stat().st_mode & 0o111
    assert not (part.host_dir(tmp_path) / "cli.js").stat().st_mode & 0o111


def test_missing_build_without_the_flag_is_one_line(npm: FakeRegistry, tmp_path: Path) -> None:
    part = delivery.npm_part("@acme/tool-linux-x64", "1.2.3", size="4 MB")
    with pytest.raises(DependencyError) as info:
        delivery.ensure_sync(part, tmp_path, auto_install=False, harness="claude_code", platform="linux-x64")
    text = str(info.value)
    assert "\n" not in text and "--auto-install-dependencies" in text
    assert "python -m agentcompass.harnesses._installed fetch claude_code --platform linux-x64" in text
    assert npm.downloads == 0


def test_concurrent_attempts_fetch_once(npm: FakeRegistry, tmp_path: Path) -> None:
    import asyncio

    npm.publish("big", "2.0.0", _tarball({"blob": (b"0" * 300_000, 0o644)}))
    part = delivery.npm_part("big", "2.0.0")

    async def many() -> None:
        await asyncio.gather(
            *(delivery.ensure([part], tmp_path, auto_install=True, harness="h", platform="p") for _ in range(6))
        )

    asyncio.run(many())
    assert npm.downloads == 1 and delivery.is_cached(part, tmp_path)


def test_mount_is_the_cache_read_only(tmp_path: Path) -> None:
    m = delivery.mount(tmp_path)
    assert m.source == (tmp_path / "agents").resolve() and m.read_only and m.target == delivery.MOUNT_TARGET
    assert m.source.is_dir()
