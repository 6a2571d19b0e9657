"""The helper kit: atomic writes, JSON, slugs, the data directory, optional imports, tools in environments; and no
plug-in keeping a copy of its own."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from agentcompass import kit
from agentcompass.errors import ConfigError, DependencyError
from agentcompass.interfaces import ComponentContext, EnvSpec

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIRS = ("benchmarks", "harnesses", "models", "environments")
KIT_NAMES = {
    "write_atomic",
    "_write_atomic",
    "write_json",
    "_write_json",
    "write_json_atomic",
    "write_text_atomic",
    "slug",
    "_slug",
    "slugify",
    "default_data_dir",
    "data_dir",
    "_data_dir_default",
    "require",
    "ensure_tools",
}


def own_copies(root: Path) -> list[str]:
    """``file:line: def name`` for every plug-in function named like a kit helper."""
    out = []
    for kind in PLUGIN_DIRS:
        for path in sorted((root / "agentcompass" / kind).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in KIT_NAMES:
                    out.append(f"{path.relative_to(root)}:{node.lineno}: def {node.name}")
    return out


def test_no_plugin_keeps_its_own_copy_of_a_kit_helper(tmp_path):
    found = own_copies(ROOT)
    assert not found, "use agentcompass.kit instead:\n" + "\n".join(found)
    (tmp_path / "agentcompass" / "harnesses").mkdir(parents=True)
    mine = tmp_path / "agentcompass" / "harnesses" / "mine.py"
    mine.write_text("import os\n\n\ndef write_atomic(p, d):\n    pass\n")
    for kind in ("benchmarks", "models", "environments"):
        (tmp_path / "agentcompass" / kind).mkdir()
    assert own_copies(tmp_path) == ["agentcompass/harnesses/mine.py:4: def write_atomic"]


def test_write_atomic_text_bytes_modes_and_no_leftovers(tmp_path):
    target = tmp_path / "deep" / "dir" / "f.txt"
    kit.write_atomic(target, "héllo\n")
    assert target.read_bytes() == "héllo\n".encode()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # like a file open() creates
    kit.write_atomic(target, b"\x00\xff", mode=0o755, durable=True)
    assert target.read_bytes() == b"\x00\xff" and stat.S_IMODE(target.stat().st_mode) == 0o755
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.txt"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    kit.write_json(target, {"old": True})

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        kit.write_json(target, {"new": True})
    monkeypatch.undo()
    assert json.loads(target.read_text()) == {"old": True} and [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_replacing_renames_what_another_program_wrote_and_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "sub" / "root.tar"
    with kit.replacing(target) as part:
        assert part.parent == target.parent and not part.exists()
        subprocess.run(["tar", "-C", str(tmp_path), "-cf", str(part), "--files-from", "/dev/null"], check=True)
    assert target.stat().st_size > 0 and [p.name for p in target.parent.iterdir()] == ["root.tar"]
    before = target.read_bytes()
    with pytest.raises(RuntimeError, match="tar failed"):
        with kit.replacing(target) as part:
            part.write_bytes(b"half")
            raise RuntimeError("tar failed")
    assert target.read_bytes() == before and [p.name for p in target.parent.iterdir()] == ["root.tar"]


def test_write_json_forms(tmp_path):
    path = kit.write_json(tmp_path / "a.json", {"k": "é", "n": [1]}, indent=None, ensure_ascii=False)
    assert path == str(tmp_path / "a.json") and Path(path).read_text(encoding="utf-8") == '{"k": "é", "n": [1]}\n'
    kit.write_json(tmp_path / "b.json", {"when": Path("/x")}, indent=4, default=str)
    assert (tmp_path / "b.json").read_text() == '{\n    "when": "/x"\n}\n'


@pytest.mark.parametrize(
    "text,kw,expected",
    [
        ("Build Me/1", {"keep": "a-z0-9", "lower": True, "strip": "-", "limit": 100}, "build-me-1"),  # image names
        ("demo/task 1", {"strip": "-.", "limit": 40, "default": "task"}, "demo-task-1"),  # containers
        ("...", {"strip": "-.", "default": "task"}, "task"),
        ("demo/task 1", {"sep": "_", "limit": 60, "default": "task"}, "demo_task_1"),  # workspaces
        ("org/repo__1", {"sep": "__", "default": ""}, "org__repo__1"),  # trajectories
        ("v1.0/rc 2", {"sep": "_"}, "v1.0_rc_2"),  # revisions
        ("", {}, "x"),
    ],
)
def test_slug(text, kw, expected):
    assert kit.slug(text, **kw) == expected


def test_data_dir_from_the_context_else_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTCOMPASS_DATA_DIR", str(tmp_path / "env"))
    assert kit.default_data_dir() == tmp_path / "env" == kit.data_dir(None)
    assert kit.data_dir(ComponentContext(data_dir=tmp_path / "ctx")) == tmp_path / "ctx"
    monkeypatch.delenv("AGENTCOMPASS_DATA_DIR")
    assert kit.default_data_dir() == Path.home() / ".cache" / "agentcompass"


def test_require_imports_or_names_the_install_command():
    assert kit.require("json", "swebench") is json
    with pytest.raises(DependencyError, match=r"pip install 'agentcompass\[swebench\]'"):
        kit.require("ac_no_such_module_xyz", "swebench", auto_install=False)


def test_ensure_tools_finds_tools_and_never_installs_on_the_host(tmp_path):
    from agentcompass.environments.local import LocalConfig, LocalProvider

    async def body():
        env = await LocalProvider(LocalConfig(root_dir=str(tmp_path)), None).open(EnvSpec(task_id="kit"))
        try:
            assert await kit.ensure_tools(env, ["sh", "ls"], auto_install=True) == []
            with pytest.raises(DependencyError, match="on this host") as info:
                await kit.ensure_tools(env, ["ac-no-such-tool"], auto_install=True)
            with pytest.raises(DependencyError, match="--auto-install-dependencies"):
                await kit.ensure_tools(env, ["ac-no-such-tool"], auto_install=False, image_hint="img:1")
            return str(info.value)
        finally:
            await env.close()

    assert "ac-no-such-tool" in asyncio.run(body())


def test_select_ids_takes_the_sample_ids_in_order_then_the_limit():
    ids = [f"t{i}" for i in range(30)]
    assert kit.select_ids(ids, None, None) == ids
    assert kit.select_ids(ids, None, 3) == ["t0", "t1", "t2"]
    assert kit.select_ids(ids, ["t5", "t1", "t9"], 2) == ["t5", "t1"]
    with pytest.raises(
        ConfigError, match=r"unknown task id\(s\) \['nope'\] in split 'test'; valid: t0, t1, .* t19 \.\.\.$"
    ):
        kit.select_ids(ids, ["t1", "nope"], None, "split 'test'")
