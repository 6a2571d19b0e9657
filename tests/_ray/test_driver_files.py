"""Where the driver writes the files a Ray worker streams back (``agentcompass._ray.executor``), without Ray: inside
the attempt directory only, a path that would leave it is refused before anything is written."""

from __future__ import annotations

import pytest

from agentcompass._ray import executor
from agentcompass.errors import PathEscapeError


def test_streamed_files_land_in_the_attempt_directory(tmp_path):
    folder = tmp_path / "attempt-1"
    folder.mkdir()
    executor._write_files(
        folder,
        [
            ("trajectory.json", b"[1]", False),
            ("artifacts/out/log.txt", b"ab", False),
            ("artifacts/out/log.txt", b"c", True),
        ],
    )
    assert (folder / "trajectory.json").read_bytes() == b"[1]"
    assert (folder / "artifacts" / "out" / "log.txt").read_bytes() == b"abc"


@pytest.mark.parametrize(
    "rel", ["../outside.txt", "artifacts/../../outside.txt", "/etc/passwd", "", "a//b", "artifacts/..", "x\0y"]
)
def test_a_path_leaving_the_attempt_directory_is_refused(tmp_path, rel):
    folder = tmp_path / "run" / "attempt-1"
    folder.mkdir(parents=True)
    with pytest.raises(PathEscapeError, match="outside the attempt directory"):
        executor._write_files(folder, [("ok.txt", b"1", False), (rel, b"x", False)])
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["ok.txt"]
