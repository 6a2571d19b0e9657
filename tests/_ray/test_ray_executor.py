"""``execution.executor: ray`` on a real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``): the
demo benchmark in the local environment and in docker, attempts on both nodes with their node recorded, the
pool limit and a model endpoint limit holding across nodes (measured), a timeout cancelling remote attempts and
closing their environments, and a worker node killed mid-run without losing anything. One cluster per module."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from unittest.mock import ANY

import pytest

from agentcompass import RunTimeoutError, run_evaluation
from agentcompass.errors import BudgetExhaustedError
from agentcompass.testing.coin_harness import draw
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._ray.support import COIN, REPO, Nodes, coin, max_overlap, ray_cluster, results_of

pytestmark = pytest.mark.slow

DEMO = [
    "count-words",
    "fix-python-script",
    "fix-shell-script",
    "git-commit",
    "hello-file",
    "json-transform",
    "partial-credit",
]
SEED = 2


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster() as nodes:
        yield nodes


def _run(tmp: Path, nodes: Nodes | None, *, overrides: list[str], **kw) -> dict:
    ray = {"executor": "ray", "ray": {"address": nodes.address}} if nodes is not None else {}
    execution = {**ray, **kw.pop("execution_params", {})}
    return run_evaluation(
        benchmark=kw.pop("benchmark", "demo"),
        harness=kw.pop("harness", "oracle"),
        model=kw.pop("model", "none"),
        environment=kw.pop("environment", "local"),
        results_dir=str(tmp),
        progress="none",
        log_level="WARNING",
        overrides=overrides,
        execution_params=execution,
        **kw,
    )


def test_demo_on_both_nodes_with_the_pool_limit_across_them(cluster, tmp_path):
    """7 tasks x 2 samples, 3 slots on a cluster of 4 CPUs (2 per node): both nodes run attempts, never more
    than 3 at once, and every (task, sample) gets the reward a local run gives it."""
    calls = tmp_path / "calls.log"
    remote = _run(
        tmp_path / "ray",
        cluster,
        n_attempts=2,
        task_concurrency=3,
        run_name="both",
        overrides=coin(seed=SEED, pass_probability=0.5, sleep_s=1.0, calls_log=str(calls)),
    )
    local = _run(
        tmp_path / "local", None, n_attempts=2, task_concurrency=3, overrides=coin(seed=SEED, pass_probability=0.5)
    )
    rows, attempts = results_of(remote)
    assert remote["metrics"]["n_samples"] == 14 and remote["metrics"]["n_errors"] == 0
    assert {(r["task_id"], r["sample"]): r["reward"] for r in rows} == {
        (r["task_id"], r["sample"]): r["reward"] for r in results_of(local)[0]
    }
    assert {(t, j): float(draw(SEED, t, j) < 0.5) for t in DEMO for j in (1, 2)} == {
        (r["task_id"], r["sample"]): r["reward"] for r in rows
    }
    nodes = [a["node"] for a in attempts]
    assert all(n["executor"] == "ray" and n["node_id"] in cluster.ids for n in nodes)
    assert {n["node_id"] for n in nodes} == set(cluster.ids)  # both nodes were used
    spans = [(a["agent"]["info"]["started"], a["agent"]["info"]["ended"]) for a in attempts]
    assert max_overlap(spans) == 3  # the limit is reached, never passed
    assert all(set(a["phases"]) >= {"env_open", "agent", "verify", "close", "dispatch"} for a in attempts)
    assert remote["metrics"]["pass_at_k"] == local["metrics"]["pass_at_k"]
    ran = calls.read_text()
    again = _run(
        tmp_path / "ray",
        cluster,
        n_attempts=2,
        task_concurrency=3,
        run_name="both",
        reuse=True,
        overrides=coin(seed=SEED, pass_probability=0.5, sleep_s=1.0, calls_log=str(calls)),
    )
    assert calls.read_text() == ran and again["metrics"] == {**remote["metrics"], "duration_s": ANY}  # kept


def test_a_model_endpoint_limit_holds_across_nodes(cluster, tmp_path):
    key = "sk-RAY-cluster-secret-77"

    def answer(request):
        text = json.dumps(request.get("body", request))
        return {"text": "answer-" + text.split("answer-")[1].split(".")[0], "delay_s": 0.4}

    with ScriptedModelServer(replies=answer) as srv:
        result = _run(
            tmp_path,
            cluster,
            benchmark="synthetic",
            harness="nop",
            environment="memory",
            model="echo-model",
            benchmark_params={"n_tasks": 10},
            model_base_url=srv.base_url,
            model_api_key=key,
            model_api_protocol="openai-chat",
            task_concurrency=4,
            provider_limits={"scripted-p": 2},
            overrides=["harness._target_=tests.helpers.ModelEchoHarness", "model.provider=scripted-p"],
        )
        peak = srv.max_concurrency
    rows, attempts = results_of(result)
    assert result["metrics"]["mean_reward"] == 1.0 and len(rows) == 10
    assert peak == 2  # 4 attempts at once, 2 calls at once
    assert {a["node"]["node_id"] for a in attempts} == set(cluster.ids)
    text = "\n".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert key not in text


def test_a_request_cost_limit_stops_a_ray_run_and_counts_the_attempts_not_started(cluster, tmp_path):
    """20 tasks at $0.01 an attempt with cost_limit_usd 0.05, one attempt at a time on the cluster: a worker's
    spending counts once its attempt ends, so exactly 5 attempts run (on the workers), the 15 others never start
    and are counted, the run ends stopped_budget; --reuse with a larger budget runs exactly the rest."""

    def answer(request):  # the synthetic task's answer (reward 1), 1000 prompt tokens: $0.01 at $10 / Mtok
        text = json.dumps(request.get("body", request))
        return {"text": "answer-" + text.split("answer-")[1].split(".")[0], "usage": {"input_tokens": 1000}}

    kw = dict(
        benchmark="synthetic",
        environment="memory",
        model="cent-model",
        benchmark_params={"n_tasks": 20},
        model_api_protocol="openai-chat",
        task_concurrency=1,
        run_name="budget",
        run_id="b",
        overrides=["harness._target_=tests.helpers.ModelEchoHarness", "model.prices={input_per_mtok: 10}"],
    )
    with ScriptedModelServer(replies=answer) as srv:
        with pytest.raises(BudgetExhaustedError) as caught:
            _run(tmp_path, cluster, model_base_url=srv.base_url, cost_limit_usd=0.05, **kw)
        stopped, n_stopped = caught.value.result, len(srv.requests)
        run_dir = Path(stopped["paths"]["run_dir"])
        started = sorted(run_dir.glob("tasks/*/sample-*/attempt-*"))
        budget = stopped["metadata"]["budget"][0]
        assert stopped["metadata"]["status"] == "stopped_budget"
        assert json.loads((run_dir / "run.json").read_text())["status"] == "stopped_budget"
        assert len(started) == 5 and n_stopped == 5 and stopped["metrics"]["n_samples"] == 5
        assert (budget["spent_cost_usd"], budget["not_started"], budget["reached"]) == (0.05, 15, True)
        nodes = [json.loads((a / "result.json").read_text())["node"] for a in started]
        assert all(n["executor"] == "ray" and n["node_id"] in cluster.ids for n in nodes)
        rest = _run(tmp_path, cluster, model_base_url=srv.base_url, cost_limit_usd=0.5, reuse=True, **kw)
        assert len(srv.requests) == 20 and len(list(run_dir.glob("tasks/*/sample-*/attempt-*"))) == 20
    assert rest["metadata"]["status"] == "completed" and rest["metrics"]["mean_reward"] == 1.0
    assert rest["metadata"]["budget"][0]["spent_cost_usd"] == 0.2


def test_agents_on_workers_call_their_worker_process_gateway(cluster, tmp_path):
    """An agent calling the model API itself on a worker node is served by the gateway of its worker process (one
    per process, shared by the attempts it runs, not one per attempt); each attempt is charged its own call."""
    key = "sk-RAY-gateway-secret-55"

    def answer(request):
        n = json.dumps(request["body"]).split("answer-")[1].split(".")[0]
        return {"text": f"answer-{n}", "usage": {"input_tokens": 10 + int(n), "output_tokens": 2}}

    with ScriptedModelServer(replies=answer) as srv:
        result = _run(
            tmp_path,
            cluster,
            benchmark="synthetic",
            harness="nop",
            model="gw-model",
            benchmark_params={"n_tasks": 8},
            model_base_url=srv.base_url,
            model_api_key=key,
            model_api_protocol="openai-chat",
            environment_params={"root_dir": str(tmp_path / "ws")},
            task_concurrency=2,
            overrides=["harness._target_=tests.helpers.GatewayEchoHarness"],
        )
    rows, attempts = results_of(result)
    assert result["metrics"]["mean_reward"] == 1.0 and len(rows) == 8
    served = [(a["node"]["node_id"], a["agent"]["info"]["pid"], a["agent"]["info"]["base"]) for a in attempts]
    assert all(
        node in cluster.ids and pid == a["node"]["pid"] for (node, pid, _), a in zip(served, attempts, strict=True)
    )
    bases = {(node, pid): set() for node, pid, _ in served}
    for node, pid, base in served:
        bases[(node, pid)].add(base)
    assert all(len(b) == 1 for b in bases.values())  # one gateway per worker process
    assert len(bases) < len(attempts)  # processes ran several attempts each, on the same gateway
    assert sorted(a["usage"]["input"] for a in attempts) == [10 + n for n in range(8)]
    text = "\n".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert key not in text and "acgw-" not in text


def test_a_dead_model_endpoint_on_a_worker_stops_the_request(cluster, tmp_path):
    """The fail-fast circuit opens on a worker node: the driver starts no attempt and no retry after it, and the
    run fails with the error's one line, as a local run does."""
    from agentcompass.errors import EvaluationFailedError
    from tests.models.test_fail_fast import closed_port

    port, start = closed_port(), time.monotonic()
    with pytest.raises(
        EvaluationFailedError, match=f"model endpoint http://127.0.0.1:{port}/v1/chat/completions is unreachable"
    ) as info:
        _run(
            tmp_path,
            cluster,
            benchmark="synthetic",
            harness="nop",
            environment="memory",
            model="dead-model",
            benchmark_params={"n_tasks": 20},
            model_base_url=f"http://127.0.0.1:{port}/v1",
            task_concurrency=3,
            max_retries=2,
            overrides=["harness._target_=tests.helpers.ModelEchoHarness"],
        )
    assert time.monotonic() - start < 60
    results = [json.loads(p.read_text()) for p in tmp_path.rglob("result.json")]
    assert 1 <= len(results) <= 3 and all(r["attempt"] == 1 for r in results)  # nothing after it
    down = [r for r in results if r["error_type"] == "ModelEndpointDownError"]
    assert down and all(r["node"]["executor"] == "ray" and r["node"]["node_id"] in cluster.ids for r in down)
    assert all(r["error_type"] in ("ModelEndpointDownError", "CancelledError") for r in results)  # others cut
    assert info.value.result["metadata"]["status"] == "failed"


def test_a_timeout_cancels_remote_attempts_and_closes_their_environments(cluster, tmp_path):
    calls = tmp_path / "calls.log"
    start = time.monotonic()
    with pytest.raises(RunTimeoutError) as info:
        _run(
            tmp_path / "res",
            cluster,
            timeout_seconds=8,
            task_concurrency=2,
            benchmark_params={"sample_ids": ["hello-file", "count-words"]},
            overrides=coin(pass_probability=1.0, sleep_s=120, calls_log=str(calls)),
        )
    assert time.monotonic() - start < 60
    lines = [line.split() for line in calls.read_text().splitlines()]
    started = [ln for ln in lines if ln[-1] != "cancelled"]
    cancelled = [ln for ln in lines if ln[-1] == "cancelled"]
    assert len(started) == 2 and len(cancelled) == 2  # both attempts were running remotely
    for ln in started:
        assert not Path(ln[5]).exists(), f"the workspace {ln[5]} of a cancelled attempt was not removed"
    result = info.value.result
    assert result["metadata"]["status"] == "timeout"
    for path in Path(result["paths"]["tasks"]).rglob("result.json"):
        assert json.loads(path.read_text())["error_type"] == "CancelledError"


def test_ctrl_c_cancels_remote_attempts_and_closes_their_environments(cluster, tmp_path):
    calls = tmp_path / "calls.log"
    ray = json.dumps({"executor": "ray", "ray": {"address": cluster.address}})
    argv = [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "demo",
        "oracle",
        "none",
        "--env",
        "local",
        "--results-dir",
        str(tmp_path / "res"),
        "--progress",
        "none",
        "--task-concurrency",
        "2",
        "--benchmark-params",
        '{"sample_ids": ["hello-file", "count-words"]}',
        "--execution-params",
        ray,
        *coin(pass_probability=1.0, sleep_s=120, calls_log=str(calls)),
    ]
    proc = subprocess.Popen(
        argv, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(calls.read_text().splitlines() if calls.exists() else []) < 2:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = [line.split() for line in calls.read_text().splitlines()]
    started = [ln for ln in lines if ln[-1] != "cancelled"]
    assert len(started) == 2 and sum(ln[-1] == "cancelled" for ln in lines) == 2
    for ln in started:
        assert not Path(ln[5]).exists(), f"the workspace {ln[5]} of a cancelled attempt was not removed"
    run_json = json.loads(next((tmp_path / "res").glob("*/*/run.json")).read_text())
    assert run_json["status"] == "cancelled"


def test_launch_shares_one_pool_across_the_cluster(cluster, tmp_path):
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch

    harness = {"id": "oracle", "_target_": COIN, "pass_probability": 1.0, "sleep_s": 1.0}
    spec = OrchestrationSpec(
        name="two",
        task_concurrency=3,
        defaults=OrchestrationDefaults(
            benchmark={"id": "demo", "limit": 4},
            harness=harness,
            environment={"id": "local"},
            execution={"executor": "ray", "ray": {"address": cluster.address}},
        ),
        requests=[RunRequestSpec(name="a"), RunRequestSpec(name="b", execution={"n_attempts": 2})],
    )
    result = launch(spec, results_dir=str(tmp_path), progress="none", log_level="WARNING")
    assert result.status == "completed", {k: v.error for k, v in result.requests.items()}
    attempts = [a for name in ("a", "b") for a in results_of(result.requests[name].result)[1]]
    assert len(attempts) == 12 and all(a["reward"] == 1.0 for a in attempts)
    spans = [(a["agent"]["info"]["started"], a["agent"]["info"]["ended"]) for a in attempts]
    assert max_overlap(spans) == 3 and result.pool["max_running"] == 3  # one pool for both requests
    assert {a["node"]["node_id"] for a in attempts} == set(cluster.ids)


@pytest.mark.docker
def test_the_demo_in_docker_on_both_nodes_after_a_prebuild(cluster, tmp_path):
    from agentcompass import _sdk
    from tests.environments.docker_support import api, require_engine

    require_engine()
    ray = {"executor": "ray", "ray": {"address": cluster.address}}
    built = _sdk.prebuild_images(benchmark="demo", environment="docker", execution_params=ray)
    assert set(built["nodes"]) == set(cluster.ids)
    assert all(r["built"] == 7 and r["failed"] == 0 for r in built["nodes"].values()), built
    run_id = "ray-docker-" + tmp_path.name[-12:].replace("_", "-")
    try:
        result = _run(
            tmp_path,
            cluster,
            environment="docker",
            task_concurrency=4,
            run_id=run_id,
            overrides=coin(pass_probability=1.0, sleep_s=1.0),
        )
        rows, attempts = results_of(result)
        assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 1.0 and len(rows) == 7
        assert {a["node"]["node_id"] for a in attempts} == set(cluster.ids)
        assert all(a["environment"]["provider"] == "docker" for a in attempts)
    finally:
        client = api()
        for c in client.containers(all=True, filters={"label": f"agentcompass.run_id={run_id}"}):
            client.remove_container(c["Id"], v=True, force=True)


def test_killing_a_worker_node_mid_run_loses_nothing(cluster, tmp_path):
    """The worker node dies while it runs attempts: they become infra errors retried on the head node; what had
    finished is kept; the rewards are a local run's. (Last in the module: it adds a fresh node afterwards.)"""
    calls = tmp_path / "calls.log"
    box: dict = {}
    overrides = coin(seed=SEED, pass_probability=0.5, sleep_s=1.5, calls_log=str(calls))

    def go() -> None:
        try:
            box["result"] = _run(
                tmp_path / "ray", cluster, n_attempts=2, task_concurrency=4, max_retries=2, overrides=overrides
            )
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=go)
    thread.start()
    before = cluster.wait_for_results(tmp_path / "ray", at_least=3)
    cluster.wait_for_an_attempt_on_the_worker(calls, within_s=1.0)  # one is in its 1.5 s sleep there
    cluster.kill_worker()
    thread.join(timeout=300)
    assert "error" not in box, box.get("error")
    result = box["result"]
    rows, attempts = results_of(result)
    local = _run(
        tmp_path / "local", None, n_attempts=2, task_concurrency=4, overrides=coin(seed=SEED, pass_probability=0.5)
    )
    assert {(r["task_id"], r["sample"]): r["reward"] for r in rows} == {
        (r["task_id"], r["sample"]): r["reward"] for r in results_of(local)[0]
    }
    assert result["metrics"]["n_errors"] == 0 and result["metrics"]["n_samples"] == 14
    lost = [a for a in _all_attempts(result) if a.get("error_type") == "NodeLostError"]
    assert lost and all(a["error_class"] == "infra" for a in lost)  # attempts died with the node...
    for a in lost:  # ...and were retried and finished
        row = next(r for r in rows if r["task_id"] == a["task_id"] and r["sample"] == a["sample"])
        assert row["status"] == "completed" and row["attempts"] >= 2
    for key, row in before.items():  # nothing finished was lost
        now = next(r for r in rows if (r["task_id"], r["sample"]) == key)
        assert now["attempt_dir"] == row["attempt_dir"] and now["reward"] == row["reward"]
    ran = [tuple(line.split()[:2]) for line in calls.read_text().splitlines() if line.split()[-1] != "cancelled"]
    assert all(ran.count((t, str(j))) == 1 for (t, j) in before)  # a finished sample never ran again
    cluster.add_worker()


def _all_attempts(result: dict) -> list[dict]:
    return [json.loads(p.read_text()) for p in Path(result["paths"]["tasks"]).rglob("result.json")]
