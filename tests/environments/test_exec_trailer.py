"""The in-band exit code of a docker exec: the wrapper's stderr trailer, split anywhere, taken out of the output."""

from __future__ import annotations

import subprocess

import pytest

from agentcompass.environments._capture import HeadTail
from agentcompass.environments.docker.execstream import TOKEN_VAR, WRAPPER, ExitTrailer

TOKEN = "0123456789abcdef0123456789abcdef"


def feed_in_pieces(data: bytes, cuts: list[int]) -> tuple[bytes, int | None]:
    sink = HeadTail(1 << 20)
    trailer = ExitTrailer(sink, TOKEN)
    last = 0
    for cut in [*cuts, len(data)]:
        trailer.feed(data[last:cut])
        last = cut
    trailer.close()
    return bytes(sink.head + sink.tail), trailer.code


def wrapper_stderr(*argv: str, cwd: str = "/") -> tuple[bytes, int]:
    proc = subprocess.run(
        ["sh", "-c", WRAPPER, "ac", cwd, *argv],
        capture_output=True,
        env={TOKEN_VAR: TOKEN, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    return proc.stderr, proc.returncode


def test_the_wrapper_reports_the_exit_code_and_exits_with_it() -> None:
    err, rc = wrapper_stderr("sh", "-c", "echo warn >&2; exit 7")
    assert rc == 7
    assert feed_in_pieces(err, []) == (b"warn\n", 7)
    err, rc = wrapper_stderr("true", cwd="/does/not/exist")
    assert rc == 126 and feed_in_pieces(err, []) == (b"cwd /does/not/exist does not exist\n", 126)


def test_the_trailer_is_found_when_split_at_every_byte() -> None:
    data = b"some error output\n" + b"\x01ac:" + TOKEN.encode() + b":137\x02" + b"late line\n"
    for cut in range(len(data) + 1):
        assert feed_in_pieces(data, [cut]) == (b"some error output\nlate line\n", 137), cut
    assert feed_in_pieces(data, list(range(1, len(data)))) == (b"some error output\nlate line\n", 137)


@pytest.mark.parametrize(
    "data",
    [
        b"plain output without a trailer\n",
        b"\x01ac:" + TOKEN.encode() + b":12x\x02 looks like one",  # not digits
        b"\x01ac:" + b"f" * 32 + b":0\x02 another command's token",
        b"ends with the start of one \x01ac:" + TOKEN[:10].encode(),
    ],
)
def test_output_that_is_not_the_trailer_passes_unchanged(data: bytes) -> None:
    for cut in range(len(data) + 1):
        assert feed_in_pieces(data, [cut]) == (data, None)
