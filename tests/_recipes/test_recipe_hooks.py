"""Recipe hooks run inside the environment at the right phases, in recipe order, with files and host
variables; a failing hook is a config error of the attempt; the built-in pip_mirror writes pip.conf."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentcompass import EvaluationFailedError, run_evaluation
from agentcompass.errors import ConfigError
from tests._recipes.support import write_recipe


def _run(results, env_params, **kw):
    base = dict(
        benchmark="synthetic",
        harness="oracle",
        model="none",
        environment="local",
        results_dir=str(results),
        progress="none",
        environment_params=env_params,
        benchmark_params={"n_tasks": 2},
        task_concurrency=2,
    )
    return run_evaluation(**{**base, **kw})


def _phase_recipes(d1: Path, d2: Path) -> None:
    (d1 / "data").mkdir(parents=True)
    (d1 / "data" / "payload.txt").write_text("payload-42\n")
    log = 'echo "$AGENTCOMPASS_PHASE {r}" >> phases.log'
    write_recipe(
        d1,
        "first",
        {
            "description": "writes markers",
            "env": ["MARK_OUT"],
            "files": {"data/payload.txt": "/opt/payload/payload.txt"},
            "hooks": {
                "after_open": [
                    log.format(r="first"),
                    'cat "$AGENTCOMPASS_ENV_ROOT/opt/payload/payload.txt" > opened.marker',
                ],
                "before_agent": ["grep -q payload-42 opened.marker", log.format(r="first")],
                "after_agent": [log.format(r="first")],
                "before_verify": [log.format(r="first")],
            },
        },
    )
    write_recipe(
        d2,
        "second",
        {
            "description": "reads them later",
            "env": {"MARK_OUT": None},
            "hooks": {
                "after_open": [log.format(r="second")],
                "before_agent": [log.format(r="second")],
                "after_agent": [log.format(r="second")],
                "before_verify": [
                    log.format(r="second"),
                    'grep -q "after_agent first" phases.log',
                    'cp phases.log "${MARK_OUT:?}/$AGENTCOMPASS_TASK_ID.log"',
                ],
            },
        },
    )


def test_hooks_run_at_each_phase_in_recipe_order(dirs, local_env, tmp_path, monkeypatch):
    d1, d2 = dirs
    _phase_recipes(d1, d2)
    out = tmp_path / "markers"
    out.mkdir()
    monkeypatch.setenv("MARK_OUT", str(out))  # reaches hooks only through the recipe's `env`
    result = _run(tmp_path / "results", local_env, enabled_recipes=["first", "second"], recipe_dirs=[str(d1), str(d2)])
    assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 1.0
    expected = [
        f"{phase} {r}"
        for phase in ("after_open", "before_agent", "after_agent", "before_verify")
        for r in ("first", "second")
    ]
    for task in ("syn-0", "syn-1"):
        assert (out / f"{task}.log").read_text().split("\n")[:-1] == expected
    run_dir = Path(result["paths"]["run_dir"])
    log = (run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-1" / "recipes.log").read_text()
    assert log.count("=== ") == 12 and "recipe=second hook#3 exit=0" in log
    assert str(out) not in (run_dir / "config.yaml").read_text()  # host values are not recorded
    assert list(json.loads((run_dir / "summary.json").read_text())["metadata"]["config"]["recipes"]) == [
        "first",
        "second",
    ]


def test_a_failing_hook_is_a_config_error_of_the_attempt(dirs, local_env, tmp_path):
    d1, _ = dirs
    write_recipe(d1, "bad", {"hooks": {"before_agent": ["echo preparing", "echo 'no such thing' >&2; exit 3"]}})
    with pytest.raises(EvaluationFailedError) as info:
        _run(tmp_path / "results", local_env, enabled_recipes=["bad"], recipe_dirs=[str(d1)])
    result = info.value.result
    assert result["metrics"]["errors_by_class"]["config"] == 2
    row = result["summary"]["tasks"][0]
    assert row["error"]["type"] == "ConfigError"
    assert "recipe 'bad' before_agent hook #2 failed (exit 3)" in row["error"]["message"]
    assert "no such thing" in row["error"]["message"]


def test_a_missing_required_host_variable_stops_the_request_before_any_attempt(dirs, local_env, tmp_path, monkeypatch):
    d1, _ = dirs
    write_recipe(d1, "needs", {"env": {"NEEDED_VAR_FOR_TEST": None, "OPTIONAL_VAR_FOR_TEST": "dflt"}})
    monkeypatch.delenv("NEEDED_VAR_FOR_TEST", raising=False)
    with pytest.raises(ConfigError, match="recipe 'needs' needs the host environment variable NEEDED_VAR_FOR_TEST"):
        _run(tmp_path / "results", local_env, enabled_recipes=["needs"], recipe_dirs=[str(d1)])
    assert not (tmp_path / "results").exists()


def test_builtin_pip_mirror_writes_pip_conf_and_keeps_the_url_off_disk(local_env, tmp_path, monkeypatch):
    secret = "s3cr3t-mirror-pw"
    monkeypatch.setenv("PIP_INDEX_URL", f"https://bot:{secret}@mirror.example/simple")
    monkeypatch.setenv("PIP_TRUSTED_HOST", "mirror.example other.example")
    result = _run(
        tmp_path / "results",
        local_env,
        enabled_recipes=["pip_mirror"],
        keep_environment=True,
        benchmark_params={"n_tasks": 1},
    )
    run_dir = Path(result["paths"]["run_dir"])
    attempt = json.loads((run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-1" / "result.json").read_text())
    ws = Path(attempt["environment"]["workspace"])
    try:
        pip_conf = (ws / "etc" / "pip.conf").read_text()
        assert f"index-url = https://bot:{secret}@mirror.example/simple" in pip_conf
        assert "trusted-host = mirror.example other.example" in pip_conf
        assert 'allow-insecure-host = ["mirror.example", "other.example"]' in (ws / "etc/uv/uv.toml").read_text()
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    on_disk = "\n".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert "PIP_INDEX_URL" in on_disk and secret not in on_disk


def test_recipe_tools_are_checked_when_the_environment_opens(dirs, local_env, tmp_path):
    d1, _ = dirs
    write_recipe(d1, "tooly", {"tools": ["bash", "definitely-not-a-tool-xyz"]})
    with pytest.raises(EvaluationFailedError) as info:
        _run(
            tmp_path / "results",
            local_env,
            enabled_recipes=["tooly"],
            recipe_dirs=[str(d1)],
            benchmark_params={"n_tasks": 1},
        )
    err = info.value.result["summary"]["tasks"][0]["error"]
    assert err["type"] == "DependencyError" and ": definitely-not-a-tool-xyz;" in err["message"]  # bash is there
    assert "missing tools in environment" in err["message"] and "--auto-install-dependencies" in err["message"]


def test_builtin_git_snapshot_records_the_agents_changes(tmp_path):
    import asyncio

    from agentcompass._recipes import RecipeRunner
    from agentcompass._sdk import compose_from_kwargs
    from agentcompass.environments.local import LocalConfig, LocalProvider
    from agentcompass.interfaces import AttemptContext, EnvSpec, Task

    recipes = compose_from_kwargs({"enabled_recipes": ["git_snapshot"]}).data["recipes"]
    runner = RecipeRunner.from_config(recipes)
    git = "git -c user.name=t -c user.email=t@t"

    async def go():
        env = await LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None).open(EnvSpec(task_id="g"))
        ctx = AttemptContext(
            task=Task(id="g", instruction=""), attempt=1, attempt_dir=tmp_path / "attempt", benchmark=None
        )
        try:
            setup = f"git init -q && echo a > a.txt && git add a.txt && {git} commit -qm base"
            assert (await env.exec(setup)).exit_code == 0
            await runner.run_hooks("after_open", env, ctx)  # git is there: no error
            assert (await env.exec("echo b >> a.txt && echo new > new.txt")).exit_code == 0
            await runner.run_hooks("after_agent", env, ctx)
            out = Path(env.path("/logs/agent/git_snapshot"))
            assert (out / "status.txt").read_text().split("\n")[:2] == [" M a.txt", "?? new.txt"]
            assert "+b" in (out / "tracked.diff").read_text()
            assert (out / "untracked.txt").read_text() == "new.txt\n"
            assert (await env.exec("git status --porcelain")).stdout == " M a.txt\n?? new.txt\n"  # untouched
        finally:
            await env.close()

    asyncio.run(go())
