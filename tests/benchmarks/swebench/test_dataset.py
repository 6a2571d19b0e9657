"""Loader: parquet (hub layout, shards, <split>.parquet), JSONL, JSON; selection; errors."""

import json
from pathlib import Path

import pytest

from agentcompass.benchmarks.swebench.benchmark import SWEBenchBenchmark, SWEBenchConfig
from agentcompass.benchmarks.swebench.dataset import load_instances
from agentcompass.errors import ConfigError, DatasetError
from agentcompass.interfaces import ComponentContext
from tests.benchmarks.swebench import fixture


def rows(n=3, mixed=True):
    base = {
        "repo": "scikit-learn/scikit-learn",
        "base_commit": "c",
        "patch": "p",
        "test_patch": "tp",
        "problem_statement": "ps",
        "hints_text": "",
        "created_at": "2024",
        "version": "0.20",
        "environment_setup_commit": "e",
    }
    out = []
    for i in range(n):
        out.append(
            {
                **base,
                "instance_id": f"o__r-{i}",
                "FAIL_TO_PASS": json.dumps([f"t.py::f{i}", "t.py::a b[1 2]"]),
                "PASS_TO_PASS": "[]",
            }
        )
    last = [f"t.py::f{n - 1}"]
    out[-1]["FAIL_TO_PASS"] = last if mixed else json.dumps(last)  # real lists are accepted too
    return out


def bench(tmp_path, **cfg):
    return SWEBenchBenchmark(SWEBenchConfig(**cfg), ComponentContext(data_dir=tmp_path / "data"))


def check(loaded):
    assert [r["instance_id"] for r in loaded] == ["o__r-0", "o__r-1", "o__r-2"]
    assert loaded[0]["FAIL_TO_PASS"] == ["t.py::f0", "t.py::a b[1 2]"] and loaded[0]["PASS_TO_PASS"] == []
    assert loaded[2]["FAIL_TO_PASS"] == ["t.py::f2"]
    assert loaded[0]["version"] == "0.20" and isinstance(loaded[0]["version"], str)


def test_jsonl_json_and_parquet_files(tmp_path):
    data = rows()
    for path in (
        fixture.write_jsonl(data, tmp_path / "d.jsonl"),
        fixture.write_json(data, tmp_path / "d.json"),
        fixture.write_parquet(rows(mixed=False), tmp_path / "d.parquet"),
    ):
        check(load_instances(str(path), "x", "test", tmp_path))


def test_parquet_with_list_columns(tmp_path):
    data = rows(mixed=False)
    for r in data:
        r["FAIL_TO_PASS"], r["PASS_TO_PASS"] = json.loads(r["FAIL_TO_PASS"]), json.loads(r["PASS_TO_PASS"])
    check(load_instances(str(fixture.write_parquet(data, tmp_path / "d.parquet")), "x", "test", tmp_path))


def test_json_dict_keyed_by_id(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({r["instance_id"]: r for r in rows()}))
    check(load_instances(str(path), "x", "test", tmp_path))


def test_hub_layout_shards_are_concatenated(tmp_path):
    data = rows(mixed=False)
    fixture.write_parquet(data[:2], tmp_path / "hub" / "data" / "test-00000-of-00002.parquet")
    fixture.write_parquet(data[2:], tmp_path / "hub" / "data" / "test-00001-of-00002.parquet")
    fixture.write_parquet(rows(1), tmp_path / "hub" / "data" / "dev-00000-of-00001.parquet")
    check(load_instances(str(tmp_path / "hub"), "x", "test", tmp_path))
    assert len(load_instances(str(tmp_path / "hub"), "x", "dev", tmp_path)) == 1


def test_split_parquet_and_hf_cache_snapshot_dirs(tmp_path):
    fixture.write_parquet(rows(mixed=False), tmp_path / "flat" / "test.parquet")
    check(load_instances(str(tmp_path / "flat"), "x", "test", tmp_path))
    shard = "data/test-00000-of-00001.parquet"
    fixture.write_parquet(rows(mixed=False), tmp_path / "cache" / "snapshots" / "abc" / shard)
    check(load_instances(str(tmp_path / "cache"), "x", "test", tmp_path))


def test_data_dir_copy_is_found_by_dataset_name(tmp_path):
    shard = "data/test-00000-of-00001.parquet"
    fixture.write_parquet(rows(mixed=False), tmp_path / "data" / "swebench" / "Org" / "Set" / shard)
    tasks = bench(tmp_path, dataset_name="Org/Set", allow_download=False).load()
    assert [t.id for t in tasks] == ["o__r-0", "o__r-1", "o__r-2"]


def test_missing_field_names_file_row_and_field(tmp_path):
    data = rows()
    del data[1]["base_commit"]
    path = fixture.write_jsonl(data, tmp_path / "d.jsonl")
    with pytest.raises(DatasetError, match=r"d\.jsonl: row 2 \(o__r-1\): missing field 'base_commit'"):
        load_instances(str(path), "x", "test", tmp_path)


def test_bad_lists_and_bad_parser_are_errors(tmp_path):
    data = rows()
    data[0]["PASS_TO_PASS"] = "not json"
    with pytest.raises(DatasetError, match="field PASS_TO_PASS is not a JSON list"):
        load_instances(str(fixture.write_jsonl(data, tmp_path / "a.jsonl")), "x", "test", tmp_path)
    data = rows()
    data[0]["log_parser"] = "parse_log_nope"
    with pytest.raises(DatasetError, match="log_parser='parse_log_nope' is not supported; valid: "):
        load_instances(str(fixture.write_jsonl(data, tmp_path / "b.jsonl")), "x", "test", tmp_path)


def test_optional_5x_columns_are_kept(tmp_path):
    data = rows()
    data[0].update(image="my/image:1", log_parser="parse_log_pytest_v2", eval_type="fail_only", eval_script="x")
    task = bench(tmp_path, dataset_path=str(fixture.write_jsonl(data, tmp_path / "d.jsonl"))).load()[0]
    assert task.image == "my/image:1" and task.data["eval_type"] == "fail_only"


def test_sample_ids_limit_and_unknown_id(tmp_path):
    path = str(fixture.write_jsonl(rows(), tmp_path / "d.jsonl"))
    assert [t.id for t in bench(tmp_path, dataset_path=path, sample_ids=["o__r-2", "o__r-0"]).load()] == [
        "o__r-0",
        "o__r-2",
    ]
    assert [t.id for t in bench(tmp_path, dataset_path=path, sample_ids="o__r-1, o__r-2", limit=1).load()] == ["o__r-1"]
    with pytest.raises(ConfigError, match="sample_ids not in the dataset: nope"):
        bench(tmp_path, dataset_path=path, sample_ids=["o__r-0", "nope"]).load()


def test_task_fields_and_image_template(tmp_path):
    path = str(fixture.write_jsonl(rows(), tmp_path / "d.jsonl"))
    task = bench(tmp_path, dataset_path=path).load()[0]
    assert task.image == "swebench/sweb.eval.x86_64.o_1776_r-0:latest"
    assert task.workdir == "/testbed" and task.instruction == "ps" and task.verifier_timeout_s == 1800
    b = bench(tmp_path, dataset_path=path, image_template="reg/{instance_id_lower}:{arch}", arch="arm64")
    assert b.env_spec(b.load()[0]).build_args["INSTANCE_IMAGE"] == "reg/o__r-0:arm64"  # history: base_only
    full = bench(tmp_path, dataset_path=path, image_template="reg/{instance_id_lower}:{arch}", history="full")
    assert full.env_spec(full.load()[0]).image == "reg/o__r-0:x86_64"
    with pytest.raises(ConfigError, match="image_template='x/{nope}' is invalid"):
        bench(tmp_path, dataset_path=path, image_template="x/{nope}").load()


def test_offline_without_local_copy_explains_how_to_provide_one(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetError) as err:
        bench(tmp_path, dataset_name="SWE-bench/SWE-bench_Verified").load()
    msg = str(err.value)
    assert "benchmark_params.dataset_path" in msg and "data/test-*.parquet" in msg
    assert str(Path(tmp_path / "data" / "swebench" / "SWE-bench" / "SWE-bench_Verified")) in msg
    with pytest.raises(DatasetError, match="allow_download is false"):
        bench(tmp_path, allow_download=False).load()


def test_missing_dataset_path_and_missing_split(tmp_path):
    with pytest.raises(DatasetError, match="does not exist"):
        bench(tmp_path, dataset_path=str(tmp_path / "nope.jsonl")).load()
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no split 'test' found"):
        bench(tmp_path, dataset_path=str(tmp_path / "empty")).load()


@pytest.mark.parametrize("name, text", [("empty.jsonl", ""), ("blank.jsonl", "\n\n"), ("empty.json", "[]")])
def test_an_empty_dataset_is_an_error(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DatasetError, match="holds no instance"):
        load_instances(str(path), "x", "test", tmp_path)


def test_an_empty_dataset_file_stops_the_cli_with_one_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "empty.jsonl").write_text("")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentcompass",
            "run",
            "swebench",
            "oracle",
            "none",
            "--env",
            "docker",
            "--benchmark-params",
            json.dumps({"dataset_path": str(tmp_path / "empty.jsonl")}),
            "--results-dir",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "holds no instance" in proc.stderr
    assert not (tmp_path / "r").exists()
