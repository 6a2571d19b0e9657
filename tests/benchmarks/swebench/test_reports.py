"""finalize(): preds.jsonl and the run report from the attempt directories of results rows."""

from __future__ import annotations

import json

from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import make_bench
from tests.benchmarks.swebench.test_grade_local import grade_local


def test_finalize_writes_predictions_and_run_report(tmp_path, calc):
    outcomes = {}
    for name, patch in (("gold", calc.row["patch"]), ("empty", ""), ("broken", "diff --git a/x b/x\n@@ nope\n")):
        grade, adir = grade_local(tmp_path, calc, patch, name)
        outcomes[name] = (grade, adir)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    # one task per outcome: the fixture has one instance, so the rows name copies of its attempt dirs
    rows = []
    for name, (_grade, adir) in outcomes.items():
        pred = json.loads((adir / "prediction.json").read_text())
        pred["instance_id"] = f"calc__calc-{name}"
        (adir / "prediction.json").write_text(json.dumps(pred))
        if (adir / "report.json").exists():
            rep = json.loads((adir / "report.json").read_text())
            (adir / "report.json").write_text(json.dumps({pred["instance_id"]: rep[fixture.INSTANCE_ID]}))
        rows.append({"task_id": pred["instance_id"], "status": "completed", "attempt_dir": str(adir)})
    rows.append({"task_id": "calc__calc-never", "status": "error", "attempt_dir": None})
    bench = make_bench(tmp_path / "data", dataset_path=str(calc.jsonl))
    paths = bench.finalize(run_dir, rows)
    assert paths == {"predictions": str(run_dir / "preds.jsonl"), "report": str(run_dir / "test-model.run-1.json")}
    preds = [json.loads(line) for line in (run_dir / "preds.jsonl").read_text().splitlines()]
    assert [p["instance_id"] for p in preds] == ["calc__calc-gold", "calc__calc-empty", "calc__calc-broken"]
    assert all(set(p) == {"instance_id", "model_name_or_path", "model_patch"} for p in preds)
    assert preds[0]["model_patch"] == calc.row["patch"] and preds[0]["model_name_or_path"] == "test-model"
    report = json.loads((run_dir / "test-model.run-1.json").read_text())
    assert report["schema_version"] == 2
    assert (
        report["total_instances"],
        report["submitted_instances"],
        report["completed_instances"],
        report["resolved_instances"],
        report["unresolved_instances"],
        report["empty_patch_instances"],
        report["error_instances"],
    ) == (4, 3, 1, 1, 0, 1, 1)
    assert report["resolved_ids"] == ["calc__calc-gold"] and report["error_ids"] == ["calc__calc-broken"]
    assert report["empty_patch_ids"] == ["calc__calc-empty"] and report["incomplete_ids"] == ["calc__calc-never"]


def test_model_name_from_config_and_timeout_is_an_error(tmp_path, calc):
    bench = make_bench(
        tmp_path / "data", dataset_path=str(calc.jsonl), model_name_or_path="org/model-x", eval_timeout_s=0.5
    )
    from agentcompass.environments.local import LocalConfig, LocalProvider
    from agentcompass.interfaces import EnvSpec
    from tests.benchmarks.swebench.conftest import grade, run

    task = bench.load()[0]
    slow = calc.row["patch"] + (
        "diff --git a/conftest.py b/conftest.py\n--- a/conftest.py\n+++ b/conftest.py\n@@ -1 +1,2 @@\n"
        " # puts the repository root on sys.path for pytest\n+import time; time.sleep(30)\n"
    )

    async def go():
        env = await LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None).open(
            EnvSpec(task_id=task.id, workdir="/testbed")
        )
        await env.upload(calc.repo, "/testbed")
        try:
            return await grade(bench, task, env, slow, tmp_path / "att")
        finally:
            await env.close()

    g = run(go())
    assert g.reward is None and g.error.startswith("eval.sh timed out") and g.details["status"] == "error"
    assert not (tmp_path / "att" / "report.json").exists()
    assert "Timeout error: 0.5 seconds exceeded." in (tmp_path / "att" / "test_output.txt").read_text()
    paths = bench.finalize(tmp_path, [{"task_id": task.id, "attempt_dir": str(tmp_path / "att")}])
    report = json.loads(open(paths["report"]).read())
    assert paths["report"].endswith("org__model-x.run-1.json")
    assert report["error_ids"] == [task.id] and report["completed_instances"] == 0
