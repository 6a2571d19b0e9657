"""The delivered Python of the Python agents: which Debian packages and wheel tags make it, how it is started, the
launchers of the wheel set, the parameters of aider and openhands; the real builds (on this host) run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentcompass.harnesses._installed import delivery, pyenv, python, registry
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses.aider import AiderConfig, AiderHarness
from agentcompass.harnesses.openhands import OpenHandsConfig, OpenHandsHarness
from tests.harnesses._installed import agent_support as support

X64 = Platform("linux", "x64", "glibc", (2, 36))
ARM_MUSL = Platform("linux", "arm64", "musl")


def test_the_interpreter_runs_through_its_own_loader() -> None:
    bookworm, trixie = python.runtime("3.11"), python.runtime("3.13")
    assert python.invocation("/r", "x64", bookworm) == [
        "/r/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "--library-path",
        "/r/lib/x86_64-linux-gnu:/r/usr/lib/x86_64-linux-gnu", "/r/usr/bin/python3.11", "-s", "-E",
    ]  # fmt: skip
    assert python.invocation("/r", "arm64", trixie)[0] == "/r/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"
    with pytest.raises(Exception, match="available: 3.11, 3.13"):
        python.runtime("3.12")
    with pytest.raises(Exception, match="Linux x64 and arm64 only"):
        python.part(bookworm, Platform("darwin", "arm64", "glibc"))


def test_wheel_tags_follow_the_runtimes_glibc() -> None:
    tags = python.wheel_platforms(python.runtime("3.11"), "x64")
    assert tags[0] == "manylinux_2_36_x86_64" and "manylinux_2_17_x86_64" in tags and "manylinux1_x86_64" in tags
    assert not any(t.startswith("manylinux_2_37") for t in tags)
    arm = python.wheel_platforms(python.runtime("3.13"), "arm64")
    assert arm[0] == "manylinux_2_41_aarch64" and arm[-1] == "manylinux2014_aarch64"


def test_a_musl_image_gets_the_same_build_as_a_glibc_one() -> None:
    """The interpreter brings its own C library: the build depends on the architecture only."""
    ctx_parts = AiderHarness(AiderConfig(), None).parts(ARM_MUSL)
    assert [p.rel for p in ctx_parts] == [
        "python/bookworm-3.11/linux-arm64",
        "pyenv/aider-chat/0.86.2/bookworm-3.11-linux-arm64",
    ]
    assert ctx_parts[1].platform_tag == "manylinux_2_36_aarch64"


def test_launcher_finds_the_runtime_beside_it() -> None:
    text = pyenv._launcher("aider", "aider.main:main", python.runtime("3.11"), "x64")
    assert 'r="$d/../../../../python/bookworm-3.11/linux-x64"' in text
    assert '"$r/usr/bin/python3.11" -s -E -c' in text and "from aider.main import main" in text
    subprocess.run(["sh", "-n", "-c", text], check=True)


def test_parameters() -> None:
    with pytest.raises(ValidationError, match="aider --message has no turn limit"):
        AiderConfig(max_turns=3)
    with pytest.raises(ValidationError, match="valid keys: reasoning_effort"):
        OpenHandsConfig(model_params={"top_p": 1})
    assert AiderHarness(AiderConfig(model_params={"cache_prompts": False, "map_tokens": 0}), None).flags() == [
        "--no-cache-prompts",
        "--map-tokens 0",
    ]
    parts = OpenHandsHarness(OpenHandsConfig(), None).parts(X64)
    assert [p.rel for p in parts] == [
        "python/trixie-3.13/linux-x64",
        "pyenv/openhands-sdk/1.58.2/trixie-3.13-linux-x64",
        "pypi/harbor/0.26.0",
    ]


def test_missing_build_names_the_flag_and_the_command(tmp_path: Path) -> None:
    part = AiderHarness(AiderConfig(), None).parts(X64)[1]
    with pytest.raises(Exception, match=r"--auto-install-dependencies .* fetch aider --platform linux-x64"):
        delivery.ensure_sync(part, tmp_path, auto_install=False, harness="aider", platform="linux-x64")


@pytest.mark.slow
def test_the_built_aider_environment_runs_on_this_host() -> None:
    """The real builds (fetched with --auto-install-dependencies semantics into the session's agent cache): the
    interpreter's record lists Debian's packages with their hashes, the launcher starts aider."""
    harness = AiderHarness(AiderConfig(), None)
    parts = harness.parts(X64)
    for part in parts:
        delivery.ensure_sync(part, support.agent_cache(), auto_install=True, harness="aider", platform="linux-x64")
    record = registry.installed(parts[0].host_dir(support.agent_cache()))
    assert record is not None and record["suite"] == "bookworm"
    packages = {p["file"].split("_")[0]: p["sha256"] for p in record["packages"]}
    assert {"python3.11-minimal", "libc6", "libssl3"} <= set(packages) and "perl" not in packages
    assert all(len(h) == 64 for h in packages.values())
    launcher = parts[1].host_dir(support.agent_cache()) / "bin" / "aider"
    done = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "aider 0.86.2", done.stderr
    env_record = json.loads((parts[1].host_dir(support.agent_cache()) / registry.RECORD).read_text())
    assert any(d.startswith("aider_chat-0.86.2") for d in env_record["distributions"])


HISTORY = """
# aider chat started at 2026-01-01 00:00:00

> Aider v0.86.2$$
> aider --yes --message=Write the file
with two lines$$
> Model: openai/m with whole edit format$$

#### Write the file$$
#### with two lines$$

notes.txt
```
one
```

> Tokens: 10 sent, 2 received.$$
> Applied edit to notes.txt$$

#### And another$$

Fine.
""".replace("$$", "  ")  # aider ends the lines it writes itself with two spaces


def test_aider_chat_history_as_atif(tmp_path: Path) -> None:
    from agentcompass.harnesses.aider import trajectory

    path = tmp_path / "aider.chat.history.md"
    path.write_text(HISTORY)
    steps = trajectory.convert(path, "Write the file\nwith two lines\n", "0.86.2", "m")["steps"]  # type: ignore[index]
    assert [(s["source"], s["message"]) for s in steps] == [
        ("user", "Write the file\nwith two lines\n"),
        ("agent", "notes.txt\n```\none\n```"),
        ("user", "And another"),
        ("agent", "Fine."),
    ]
    assert steps[1]["observation"]["results"] == [
        {"content": "Tokens: 10 sent, 2 received.\nApplied edit to notes.txt"}
    ]
    assert trajectory.convert(tmp_path / "missing.md", "x", "0.86.2", "m") is None
