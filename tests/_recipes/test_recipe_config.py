"""Recipe lookup and precedence: conf/recipe then recipe_dirs (later wins), overlays between files and the
command line, in the order given; clear errors for unknown and malformed recipes."""

from __future__ import annotations

import pytest
import yaml

from agentcompass._cli.main import main
from agentcompass._config.registry import list_ids
from agentcompass._sdk import compose_from_kwargs
from agentcompass.errors import ConfigError
from tests._recipes.support import write_recipe

BASE = dict(benchmark="synthetic", harness="nop", model="none", environment="memory")


def compose(**kw):
    return compose_from_kwargs({**BASE, **kw})


@pytest.fixture
def two_dirs(dirs, tmp_path):
    d1, d2 = dirs
    write_recipe(
        d1,
        "alpha",
        {
            "description": "alpha",
            "config": {
                "runtime": {"task_concurrency": 3},
                "execution": {"max_retries": 1, "retry_pattern_list": ["from-alpha"]},
                "benchmark": {"n_tasks": 4},
            },
        },
    )
    write_recipe(d1, "beta", {"description": "shadowed by recipes2/beta", "config": {"execution": {"max_retries": 9}}})
    write_recipe(
        d2,
        "beta",
        {
            "description": "beta",
            "config": {
                "runtime": {"task_concurrency": 5},
                "execution": {"retry_pattern_list": ["from-beta"]},
                "output": {"run_name": "beta-run"},
            },
        },
    )
    cfg = tmp_path / "file.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {"runtime": {"task_concurrency": 2}, "execution": {"max_retries": 0}, "benchmark": {"n_tasks": 7}}
        )
    )
    return d1, d2, str(cfg)


def test_two_recipes_from_two_dirs_apply_in_order_above_files(two_dirs):
    d1, d2, cfg = two_dirs
    r = compose(config_path=cfg, enabled_recipes=["alpha", "beta"], recipe_dirs=[str(d1), str(d2)])
    c = r.config
    assert c.runtime.task_concurrency == 5  # beta (applied last) beats alpha and the file
    assert c.execution.max_retries == 1  # alpha beats the file; recipes1/beta is shadowed
    assert c.execution.retry_pattern_list == ["from-beta"]  # lists are replaced, later recipe wins
    assert r.data["benchmark"]["n_tasks"] == 4  # alpha's overlay beats the file's 7
    assert c.output.run_name == "beta-run"
    assert list(r.data["recipes"]) == ["alpha", "beta"]
    assert r.data["recipes"]["beta"]["path"] == str(d2.resolve() / "beta.yaml")
    # the other order: alpha now applies last
    r = compose(config_path=cfg, enabled_recipes=["beta", "alpha"], recipe_dirs=[str(d1), str(d2)])
    assert r.config.runtime.task_concurrency == 3 and r.config.execution.retry_pattern_list == ["from-alpha"]
    # the directories in the other order: recipes1/beta wins the clash
    r = compose(enabled_recipes=["alpha", "beta"], recipe_dirs=[str(d2), str(d1)])
    assert r.config.execution.max_retries == 9 and r.data["recipes"]["beta"]["description"].startswith("shadowed")


def test_command_line_values_and_overrides_beat_recipes(two_dirs):
    d1, d2, cfg = two_dirs
    r = compose(
        config_path=cfg,
        enabled_recipes=["alpha", "beta"],
        recipe_dirs=[str(d1), str(d2)],
        task_concurrency=8,
        benchmark_params={"n_tasks": 1},
        overrides=["execution.max_retries=2"],
    )
    assert r.config.runtime.task_concurrency == 8  # explicit argument
    assert r.data["benchmark"]["n_tasks"] == 1
    assert r.config.execution.max_retries == 2  # Hydra-style override beats the overlay
    assert r.config.execution.retry_pattern_list == ["from-beta"]


def test_recipes_enabled_from_a_config_file_and_the_cli(two_dirs, capsys):
    d1, d2, cfg = two_dirs
    enabling = yaml.safe_load(open(cfg))
    enabling["execution"]["enabled_recipes"] = ["alpha"]
    enabling["runtime"]["recipe_dirs"] = [str(d1)]
    with open(cfg, "w") as fh:
        yaml.safe_dump(enabling, fh)
    assert compose(config_path=cfg).config.runtime.task_concurrency == 3
    code = main(
        [
            "config",
            "synthetic",
            "nop",
            "none",
            "--env",
            "memory",
            "--config",
            cfg,
            "--recipe",
            "alpha",
            "--recipe",
            "beta",
            "--recipe-dir",
            str(d1),
            "--recipe-dir",
            str(d2),
            "--task-concurrency",
            "6",
        ]
    )
    assert code == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["execution"]["enabled_recipes"] == ["alpha", "beta"]
    assert list(printed["recipes"]) == ["alpha", "beta"]
    assert printed["runtime"]["task_concurrency"] == 6 and printed["execution"]["max_retries"] == 1


def test_unknown_recipe_lists_the_available_ones(dirs):
    d1, _ = dirs
    write_recipe(d1, "mine", {"description": "x"})
    with pytest.raises(ConfigError) as info:
        compose(enabled_recipes=["nope"], recipe_dirs=[str(d1)])
    msg = str(info.value)
    assert "unknown recipe 'nope'" in msg and "available recipes:" in msg
    assert "mine" in msg and "pip_mirror" in msg and "no_network" in msg
    with pytest.raises(ConfigError, match="recipe_dirs: '.*missing' does not exist"):
        compose(enabled_recipes=["mine"], recipe_dirs=[str(d1 / "missing")])
    with pytest.raises(ConfigError, match="does not exist"):  # also when no recipe is enabled
        compose(recipe_dirs=[str(d1 / "missing")])
    assert main(["config", "--recipe", "nope"]) == 2  # CLI: usage/config error


@pytest.mark.parametrize(
    "content, key",
    [
        ({"descripton": "typo"}, "'descripton'"),
        ({"hooks": {"on_start": ["true"]}}, "'hooks.on_start'"),
        ({"hooks": {"after_open": "echo not a list"}}, "hooks.after_open"),
        ({"config": {"execution": {"enabled_recipes": ["x"]}}}, "execution.enabled_recipes"),
        ({"config": {"bogus": {}}}, "'bogus'"),
        ({"config": {"execution": {"max_retries": -1}}}, "max_retries"),
        ({"files": {"a.txt": "relative/target"}}, "absolute"),
        ({"files": {"missing.txt": "/x"}}, "'missing.txt' does not exist"),
        ({"env": {"X": 3}}, "env"),
        ({"tools": ["rm -rf /"]}, "not a command name"),
        ("- just\n- a list\n", "must hold a mapping"),
        ("hooks: [unclosed\n", "cannot be read as YAML"),
    ],
)
def test_a_malformed_recipe_names_the_file_and_the_key(dirs, content, key):
    d1, _ = dirs
    path = write_recipe(d1, "broken", content)
    with pytest.raises(ConfigError) as info:
        compose(enabled_recipes=["broken"], recipe_dirs=[str(d1)])
    msg = str(info.value)
    assert str(path.resolve()) in msg and key in msg, msg


def test_builtin_recipes_load_and_no_network_is_refused_by_the_local_environment():
    r = compose(enabled_recipes=["pip_mirror", "git_snapshot", "debug_keep"])
    assert r.data["recipes"]["pip_mirror"]["env"]["PIP_INDEX_URL"] is None  # required, value not stored
    assert r.data["recipes"]["git_snapshot"]["tools"] == ["git"]
    assert r.config.execution.keep_environment is True and r.config.runtime.file_log_level == "DEBUG"
    with pytest.raises(ConfigError) as info:
        compose(environment="local", enabled_recipes=["no_network"])
    assert "network" in str(info.value) and "no_network" in str(info.value)
    if "docker" in list_ids("environment"):
        r = compose(environment="docker", enabled_recipes=["no_network"])
        assert r.data["environment"]["network"] == "none"


def test_an_override_may_name_a_key_that_only_a_recipe_adds(dirs):
    d1, _ = dirs
    write_recipe(d1, "extra", {"config": {"benchmark": {"n_tasks": 3}, "output": {"run_name": "from-recipe"}}})
    write_recipe(d1, "adds_key", {"config": {"harness": {"fail_on_error": True}}})
    write_recipe(d1, "use_oracle", {"config": {"harness": "oracle"}})
    # harness.fail_on_error is not in the harness YAML (the adds_key overlay brings it in), but it is a field of the
    # oracle's config class: a plain override of it is taken as '+harness.fail_on_error' and validated by the class
    plain = compose(harness="oracle", overrides=["harness.fail_on_error=false"])
    assert plain.data["harness"]["fail_on_error"] is False
    r = compose(
        harness=None,
        enabled_recipes=["use_oracle", "adds_key"],
        recipe_dirs=[str(d1)],
        overrides=["harness.fail_on_error=false"],
    )
    assert r.choices["harness"] == "oracle" and r.data["harness"]["fail_on_error"] is False
    # recipes selected by an override, together with such an override
    r = compose(
        harness=None,
        recipe_dirs=[str(d1)],
        overrides=["execution.enabled_recipes=[use_oracle,adds_key,extra]", "harness.fail_on_error=false"],
    )
    assert list(r.data["recipes"]) == ["use_oracle", "adds_key", "extra"] and r.data["benchmark"]["n_tasks"] == 3
    assert r.data["harness"]["fail_on_error"] is False
    # a genuinely bad override is still reported as such
    with pytest.raises(ConfigError, match="no_such_key"):
        compose(recipe_dirs=[str(d1)], overrides=["execution.enabled_recipes=[extra]", "harness.no_such_key=1"])
    with pytest.raises(ConfigError, match="no_such_key"):
        compose(overrides=["harness.no_such_key=1"])
