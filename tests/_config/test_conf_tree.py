"""The config tree: conf/config.yaml states the schema's defaults, and a derived component file extends its base
through a Hydra defaults list, saying only what differs."""

from __future__ import annotations

import pytest
import yaml

from agentcompass._config.compose import component_config
from agentcompass._config.registry import GROUPS, conf_dir, list_ids
from agentcompass._config.schema import ExecutionConfig, OutputConfig, RuntimeConfig

DERIVED = {
    ("benchmark", "swebench_verified"): "swebench",
    ("benchmark", "swebench_lite"): "swebench",
    ("benchmark", "swebench_full"): "swebench",
    ("benchmark", "swebench_multilingual"): "swebench",
    ("benchmark", "swebench_multimodal"): "swebench",
    ("benchmark", "harbor"): "terminal_bench",
    ("benchmark", "harbor_terminal_bench_2"): "terminal_bench",
    ("benchmark", "harbor_swebench_verified"): "terminal_bench",
    ("benchmark", "terminal_bench_1"): "terminal_bench",
    ("benchmark", "terminal_bench_2"): "terminal_bench",
    ("benchmark", "terminal_bench_2_1"): "terminal_bench",
    ("benchmark", "terminal_bench_2_verified"): "terminal_bench",
    ("benchmark", "tau2_airline"): "tau2",
    ("benchmark", "tau2_retail"): "tau2",
    ("benchmark", "tau2_telecom"): "tau2",
    ("model", "scripted"): "generic",
}


def _raw(group: str, ident: str) -> dict:
    return yaml.safe_load((conf_dir() / group / f"{ident}.yaml").read_text()) or {}


@pytest.mark.parametrize(
    "section,model", [("runtime", RuntimeConfig), ("execution", ExecutionConfig), ("output", OutputConfig)]
)
def test_config_yaml_states_the_schema_defaults(section, model):
    assert yaml.safe_load((conf_dir() / "config.yaml").read_text())[section] == model().model_dump()


def test_the_derived_files_are_exactly_these():
    found = {(g, i): _raw(g, i)["defaults"][0] for g in GROUPS for i in list_ids(g) if "defaults" in _raw(g, i)}
    assert found == DERIVED


@pytest.mark.parametrize("group,ident", sorted(DERIVED))
def test_a_derived_file_says_only_what_differs(group, ident):
    base_id = DERIVED[(group, ident)]
    raw, base = _raw(group, ident), component_config(group, base_id)
    assert raw["defaults"] == [base_id, "_self_"]
    own = {k: v for k, v in raw.items() if k != "defaults"}
    same = sorted(k for k, v in own.items() if k in base and v == _raw(group, base_id).get(k))
    assert not same, f"{group}/{ident}.yaml restates {same} of {base_id}.yaml"
    composed = component_config(group, ident)
    assert list(composed) == list(base)  # the base's keys, in the base's order
    assert composed == {**base, **{k: composed[k] for k in own}} and composed["id"] == ident


def test_derived_values_come_through_composition(monkeypatch):
    monkeypatch.setenv("AGENTCOMPASS_SCRIPTED_PORT", "9123")
    scripted = component_config("model", "scripted")
    assert scripted["base_url"] == "http://127.0.0.1:9123/v1" and scripted["request_timeout_s"] == 60
    assert scripted["prices"] is None and scripted["params"] == {}  # from generic.yaml
    verified = component_config("benchmark", "swebench_verified")
    assert verified["dataset_name"] == "SWE-bench/SWE-bench_Verified" and verified["agent_env"] == {
        "BASH_ENV": "/root/.bashrc"
    }
    tb21 = component_config("benchmark", "terminal_bench_2_1")
    assert (tb21["subdir"], tb21["clone_timeout_s"], tb21["revision"]) == (
        "tasks",
        1800,
        "7131e4375048a0e408a8fb404b5f499d726b695b",
    )
