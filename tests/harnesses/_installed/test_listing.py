"""``agentcompass list harnesses``: each published agent program with its pinned version, the model APIs it speaks
and whether its build for this host is in the cache."""

from __future__ import annotations

import json
from pathlib import Path

from agentcompass import _sdk
from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.platform import host
from agentcompass.harnesses.pi import PiConfig, PiHarness
from agentcompass.interfaces import ComponentContext
from tests.run_support import run_cli

AGENTS = {"claude_code", "codex", "opencode", "qwen_code", "pi", "cline", "kilo"}


def test_rows_have_version_protocols_and_cache_state(tmp_path: Path) -> None:
    rows = {r["id"]: r for r in _sdk.list_components("harnesses", data_dir=tmp_path)}
    assert AGENTS <= {i for i, r in rows.items() if "version" in r}
    assert "version" not in rows["oracle"] and "version" not in rows["terminus2"]
    assert (rows["pi"]["version"], rows["pi"]["protocols"], rows["pi"]["cached"]) == ("1.6.0", ["openai-chat"], False)
    assert rows["claude_code"]["protocols"] == ["anthropic-messages"] and rows["codex"]["protocols"] == [
        "openai-responses"
    ]
    # the builds of pi for this host placed in the cache (their records written as a fetch does): cached
    pi = PiHarness(PiConfig(), ComponentContext(data_dir=tmp_path))
    for part in pi.parts(host()):
        part.host_dir(tmp_path).mkdir(parents=True)
        (part.host_dir(tmp_path) / ".agentcompass.json").write_text(json.dumps({"name": part.name}))
        assert delivery.is_cached(part, tmp_path)
    rows = {r["id"]: r for r in _sdk.list_components("harnesses", data_dir=tmp_path)}
    assert rows["pi"]["cached"] is True and rows["cline"]["cached"] is False


def test_the_cli_table_shows_them(tmp_path: Path) -> None:
    done = run_cli("list", "harnesses", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines()}
    assert lines["id"][:5] == ["id", "version", "protocols", "build", "description"]
    assert lines["kilo"][1:4] == ["7.7.7", "openai-chat", "not"] and lines["oracle"][1:4] == ["-", "-", "-"]
