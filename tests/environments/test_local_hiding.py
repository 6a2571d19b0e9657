"""``hide_host_paths`` (hole 4 of docs/integrity.md): a local environment's commands see the benchmark's task
directories and the other workspaces empty and the owning process's command line empty, while its own workspace
works as before; with the option off they see all of it. Needs the right to make a mount namespace (root)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcompass.interfaces import EnvSpec
from tests.environments.conftest import run


def _probe(env, private: Path, other: Path) -> str:
    return (
        f"ls -A {private}; echo @; ls -A {other.parent}; echo @; wc -c < /proc/{os.getpid()}/cmdline; echo @; "
        'echo ok > "$AGENTCOMPASS_WORKDIR/x" && cat "$AGENTCOMPASS_WORKDIR/x"'
    )


@pytest.mark.parametrize("hide", [True, False])
def test_private_paths_other_workspaces_and_the_owner_command_line(make_provider, tmp_path, hide):
    private = tmp_path / "tasks"
    (private / "t1" / "solution").mkdir(parents=True)
    (private / "t1" / "solution" / "solve.sh").write_text("echo secret\n")

    async def body():
        provider = make_provider(hide_host_paths=hide)
        env = await provider.open(EnvSpec(task_id="a", private_paths=[private]))
        other = await provider.open(EnvSpec(task_id="b", private_paths=[private]))
        try:
            described = env.describe()
            if hide and described.get("hide_error"):
                pytest.skip(f"no mount namespace here: {described['hide_error']}")
            res = await env.exec(_probe(env, private, other.root), timeout=60)
            return described, res.stdout.split("@\n"), env.root
        finally:
            await env.close()
            await other.close()

    described, (listed, workspaces, cmdline, wrote), root = run(body())
    assert wrote.strip() == "ok" and (root / "app" / "x").exists() is False  # removed at close
    if hide:
        assert listed.strip() == "" and workspaces.split() == [root.name]
        assert int(cmdline) == 0
        assert str(private.resolve()) in described["hidden"]
    else:
        assert listed.split() == ["t1"] and len(workspaces.split()) >= 2
        assert int(cmdline) > 0
        assert "hidden" not in described
