"""What a Ray worker sends back (``agentcompass._ray.worker``), without Ray: the attempt's files (result.json, symlinks
and a streamed checkpoint unchanged since left out, large files in chunks), read on the loop or in a thread alike."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agentcompass._ray import worker


def _attempt_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "attempt-1"
    (folder / "artifacts" / "out").mkdir(parents=True)
    (folder / "result.json").write_text("{}")
    (folder / "checkpoint.json").write_text('{"s": 1}')
    (folder / "trajectory.json").write_text("[]")
    (folder / "artifacts" / "out" / "big.bin").write_bytes(b"x" * 25)
    (folder / "artifacts" / "link").symlink_to(folder / "trajectory.json")
    os.symlink(tmp_path, folder / "artifacts" / "outside")
    return folder


def test_the_files_sent_at_the_end_of_an_attempt(tmp_path, monkeypatch):
    folder = _attempt_dir(tmp_path)
    monkeypatch.setattr(worker, "CHUNK", 10)
    found = worker._listing(folder)
    assert [rel for _, rel, _ in found] == [
        "artifacts/out/big.bin",
        "checkpoint.json",
        "result.json",
        "trajectory.json",
    ]  # regular files only: no symlink, nothing through a symlinked directory
    sent = list(worker._files(found, {}))
    assert [(rel, len(data), append) for _, rel, data, append in sent] == [
        ("artifacts/out/big.bin", 10, False),
        ("artifacts/out/big.bin", 10, True),
        ("artifacts/out/big.bin", 5, True),
        ("checkpoint.json", 8, False),
        ("trajectory.json", 2, False),
    ]
    unchanged = {"checkpoint.json": b'{"s": 1}'}
    assert "checkpoint.json" not in {rel for _, rel, _, _ in worker._files(found, unchanged)}
    changed = {"checkpoint.json": b'{"s": 0}'}
    assert "checkpoint.json" in {rel for _, rel, _, _ in worker._files(found, changed)}
    inline = asyncio.run(worker._read_files(folder, {}))
    monkeypatch.setattr(worker, "INLINE_READ", 0)  # read in a thread: the same items
    assert asyncio.run(worker._read_files(folder, {})) == inline == sent
