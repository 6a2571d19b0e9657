"""Config composition: defaults, files in order, overrides, explicit arguments; validation; secrets."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml

from agentcompass import run_evaluation
from agentcompass._sdk import compose_from_kwargs
from agentcompass.errors import ConfigError, UnknownComponentError

SECRET = "sk-TOPSECRET-0123456789abcdef"


def compose(**kw):
    return compose_from_kwargs(kw)


def write(path: Path, data) -> str:
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_defaults_are_the_bundled_demo():
    r = compose()
    assert r.choices == {"benchmark": "demo", "harness": "oracle", "model": "none", "environment": "local"}
    assert r.config.runtime.task_concurrency >= 1 and r.config.runtime.checkpoint_resume is True


def test_files_merge_in_order_lists_replaced_and_explicit_wins(tmp_path):
    a = write(
        tmp_path / "a.yaml",
        {
            "runtime": {"task_concurrency": 3, "provider_limits": {"docker": 2}},
            "execution": {"retry_pattern_list": ["a", "b"], "max_retries": 1},
        },
    )
    b = write(
        tmp_path / "b.yaml", {"runtime": {"provider_limits": {"local": 5}}, "execution": {"retry_pattern_list": ["c"]}}
    )
    r = compose(config_path=[a, b])
    assert r.config.runtime.task_concurrency == 3  # from a, untouched by b
    assert r.config.runtime.provider_limits == {"docker": 2, "local": 5}  # dicts merge
    assert r.config.execution.retry_pattern_list == ["c"]  # lists are replaced
    assert r.config.execution.max_retries == 1
    r = compose(config_path=[a, b], task_concurrency=9, overrides=["execution.max_retries=4"])
    assert r.config.runtime.task_concurrency == 9 and r.config.execution.max_retries == 4
    r = compose(config_path=[b, a])  # order matters
    assert r.config.execution.retry_pattern_list == ["a", "b"]


def test_a_config_file_can_select_components(tmp_path):
    f = write(
        tmp_path / "c.yaml", {"benchmark": {"id": "synthetic", "n_tasks": 3}, "harness": "nop", "environment": "memory"}
    )
    r = compose(config_path=f)
    assert r.choices["benchmark"] == "synthetic" and r.data["benchmark"]["n_tasks"] == 3
    assert r.choices["harness"] == "nop" and r.choices["environment"] == "memory"
    assert compose(config_path=f, harness="oracle").choices["harness"] == "oracle"  # explicit wins


def test_unknown_component_lists_valid_ids():
    with pytest.raises(UnknownComponentError) as info:
        compose(benchmark="nope")
    assert "demo" in info.value.valid and "valid ids: " in str(info.value)


def test_any_model_name_becomes_the_generic_model_id():
    r = compose(model="my-org/my-model:latest", model_base_url="http://127.0.0.1:9/v1")
    assert r.data["model"]["id"] == "my-org/my-model:latest"
    assert r.data["model"]["_target_"] == "agentcompass.models.client.Model"
    assert r.data["model"]["base_url"] == "http://127.0.0.1:9/v1"


def test_component_params_are_validated_by_the_component():
    with pytest.raises(ConfigError, match=r"harness 'oracle': unknown key 'bogus'; valid keys: fail_on_error"):
        compose(harness_params={"bogus": 1})
    with pytest.raises(ConfigError, match=r"benchmark_params=\[1, 2\]: Input should be a valid dictionary"):
        compose(benchmark_params=[1, 2])


def _all_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_api_key_never_reaches_disk_or_logs(tmp_path, caplog, capfd):
    caplog.set_level(logging.DEBUG, logger="agentcompass")
    results = tmp_path / "results"
    cfg = write(tmp_path / "key.yaml", {"model": {"api_key": SECRET}})
    common = dict(
        benchmark="synthetic",
        harness="nop",
        environment="memory",
        results_dir=str(results),
        progress="plain",
        log_level="DEBUG",
        file_log_level="DEBUG",
        model_base_url="http://127.0.0.1:9/v1",
        benchmark_params={"n_tasks": 2},
    )
    run_evaluation(model="some-model", model_api_key=SECRET, **common)
    run_evaluation(model="some-model", config_path=cfg, **common)
    run_evaluation(model="some-model", overrides=[f"model.api_key={SECRET}"], **common)
    text = _all_text(results)
    assert "***REDACTED***" in text and "some-model" in text
    assert SECRET not in text
    out, err = capfd.readouterr()
    assert SECRET not in out + err + caplog.text
