"""``agentcompass schema``: the record's JSON Schemas, versioned; the files of a fresh run and of the run
directory in tests/data fit them when checked by an independent JSON Schema validator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass._cli.main import main

KINDS = ("result", "row", "summary", "run")
OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "run_v0"


def _schema(kind: str, capsys) -> dict:
    assert main(["schema", kind]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_kind_prints_a_versioned_schema(capsys):
    for kind in KINDS:
        doc = _schema(kind, capsys)
        assert doc["$id"] == f"urn:agentcompass:schema:{kind}:v1" and doc["schema_version"] == 1
        assert doc["$schema"].endswith("2020-12/schema") and doc["type"] == "object"
    assert main(["schema", "--all"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)) == sorted(KINDS)
    assert main(["schema"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == list(KINDS)


def test_an_unknown_kind_is_one_line_and_exit_2():
    out = subprocess.run([sys.executable, "-m", "agentcompass", "schema", "rows"], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        "agentcompass schema: error: argument KIND: invalid choice: 'rows' (choose from 'result', 'row', 'summary', "
        "'run') (see 'agentcompass schema --help')"
    ]


def _files(run_dir: Path) -> dict[str, list]:
    return {
        "result": [json.loads(p.read_text()) for p in run_dir.glob("tasks/*/sample-*/attempt-*/result.json")],
        "row": [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()],
        "summary": [json.loads((run_dir / "summary.json").read_text())],
        "run": [json.loads((run_dir / "run.json").read_text())],
    }


def test_fresh_and_old_run_files_fit_the_printed_schemas(tmp_path, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"sample_ids": ["hello-file", "count-words"]},
        results_dir=str(tmp_path),
        n_attempts=2,
        progress="none",
        log_level="WARNING",
    )
    fresh = Path(result["paths"]["run_dir"])
    assert result["metadata"]["schema_version"] == 1
    (old,) = OLD_RUN.glob("*/*")
    for run_dir, n_samples in ((fresh, 4), (old, 6)):
        files = _files(run_dir)
        assert len(files["result"]) == len(files["row"]) == n_samples  # one attempt per sample
        for kind in KINDS:
            validator = jsonschema.Draft202012Validator(_schema(kind, capsys))
            for doc in files[kind]:
                validator.validate(doc)
    bad = files["row"][0] | {"reward": "high"}  # the schema can fail: a wrong type is caught
    with pytest.raises(jsonschema.ValidationError, match="reward"):
        jsonschema.Draft202012Validator(_schema("row", capsys)).validate(bad)
