"""Every keyword of ``run_evaluation`` (and its ``agentcompass run`` option) takes effect: each case changes one
keyword from what the other cases use and checks an effect on the run (its files, the harness, the model
server, the console). The list of cases must equal the signature, so a new keyword without a case fails."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentcompass import RunTimeoutError, run_evaluation
from agentcompass._cli.main import main
from agentcompass._config import options
from agentcompass.errors import AgentCompassError, BudgetExhaustedError
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._sdk.keyword_support import RECORDING, Outcome, RecordingHarness, to_argv

DROP = object()
KEY = "kw-secret-key"


@dataclass
class Env:
    tmp: Path
    server: ScriptedModelServer

    @property
    def out(self) -> Path:
        return self.tmp / "out"

    def base(self, **over: Any) -> dict[str, Any]:
        kw: dict[str, Any] = dict(
            benchmark="synthetic",
            harness="oracle",
            model="none",
            environment="memory",
            benchmark_params={"n_tasks": 2},
            harness_params={"_target_": RECORDING},
            results_dir=self.out,
            run_name="kw",
            run_id="r1",
            progress="none",
        )
        for key, value in over.items():
            if value is DROP:
                kw.pop(key, None)
            else:
                kw[key] = value
        return kw

    def recording(self, **fields: Any) -> dict[str, Any]:
        return {"_target_": RECORDING, **fields}

    def model(self, **over: Any) -> dict[str, Any]:
        return self.base(
            **{
                "model": "kw-model",
                "harness_params": {"_target_": "tests.helpers.ModelEchoHarness"},
                "benchmark_params": {"n_tasks": 1},
                "model_base_url": self.server.base_url,
                "model_api_key": KEY,
                "model_api_protocol": "openai-chat",
                **over,
            }
        )


Check = Callable[[Outcome], None]
CASES: dict[str, Callable[[Env], tuple[dict[str, Any], Check]]] = {}


def case(*names: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for name in names:
            CASES[name] = fn
        return fn

    return register


def raised(o: Outcome, exc: type, code: int) -> bool:
    return isinstance(o.error, exc) if o.code is None else o.code == code


# ------------------------------------------------------------------------------------------ components
@case("benchmark")
def _benchmark(env: Env):
    return env.base(), lambda o: [r["task_id"] for r in o.rows()] == ["syn-0", "syn-1"] or _fail(o)


@case("harness")
def _harness(env: Env):
    def check(o: Outcome) -> None:  # the default harness (oracle) scores 1 on every synthetic task
        assert o.summary()["metadata"]["harness"] == "nop" and [r["reward"] for r in o.rows()] == [0.0, 0.0]

    return env.base(harness="nop", harness_params=DROP), check


@case("model", "model_base_url", "model_api_key")
def _model(env: Env):
    def check(o: Outcome) -> None:  # the key is checked by the server: another key gets 401 and a model error
        assert env.server.requests and env.server.requests[-1]["body"]["model"] == "kw-model"
        assert [r["status"] for r in o.rows()] == ["completed"], o.rows()

    return env.model(), check


@case("model_api_protocol")
def _protocol(env: Env):
    def check(o: Outcome) -> None:
        assert [r["path"] for r in env.server.requests] == ["/v1/responses"]

    return env.model(model_api_protocol="openai-responses"), check


@case("model_params")
def _model_params(env: Env):
    def check(o: Outcome) -> None:
        assert env.server.requests[-1]["body"]["temperature"] == 0.25

    return env.model(model_params={"temperature": 0.25}), check


@case("model_roles")
def _model_roles(env: Env):  # the benchmark's judge role, its model set by the keyword, on the main endpoint
    def check(o: Outcome) -> None:
        judged = [r["body"] for r in env.server.requests if r["body"]["model"] != "kw-model"]
        assert [(b["model"], b.get("temperature")) for b in judged] == [("kw-judge", 0.0)], judged
        assert o.attempt("syn-0")["usage_by_role"]["judge"]["calls"] == 1

    judged = {"_target_": "tests._orchestrator.roles_support.JudgedBenchmark", "n_tasks": 1}
    return env.model(benchmark_params=judged, model_roles={"judge": {"id": "kw-judge"}}), check


LOOP = {"_target_": "tests.helpers.LoopHarness", "way": "complete", "n_calls": 3}


def _limited(env: Env, hit: str, sent: int) -> Check:
    def check(o: Outcome) -> None:
        agent = o.attempt("syn-0")["agent"]
        assert agent["exit_status"] == "limits_exceeded" and agent["limit_hit"] == hit, agent
        assert len(env.server.requests) == sent

    return check


@case("attempt_max_model_calls")
def _attempt_max_model_calls(env: Env):  # the third of three calls is refused
    return env.model(harness_params=LOOP, attempt_max_model_calls=2), _limited(env, "max_model_calls", 2)


@case("attempt_max_tokens_total")
def _attempt_max_tokens_total(env: Env):  # the first call spends more than one token: the second is refused
    return env.model(harness_params=LOOP, attempt_max_tokens_total=1), _limited(env, "max_tokens_total", 1)


@case("environment")
def _environment(env: Env):  # the default environment is local
    return env.base(), lambda o: o.attempt("syn-0")["environment"]["provider"] == "memory" or _fail(o)


@case("environment_params")
def _environment_params(env: Env):
    ws = env.tmp / "workspaces"

    def check(o: Outcome) -> None:
        assert o.attempt("syn-0")["environment"]["workspace"].startswith(str(ws))

    return env.base(environment="local", environment_params={"root_dir": str(ws)}), check


@case("keep_environment")
def _keep(env: Env):
    ws = env.tmp / "kept"

    def check(o: Outcome) -> None:  # without it the workspace is removed when the attempt ends
        assert Path(o.attempt("syn-0")["environment"]["workspace"]).is_dir()

    return env.base(environment="local", environment_params={"root_dir": str(ws)}, keep_environment=True), check


# ------------------------------------------------------------------------------------------ config layers
@case("config_path")
def _config_path(env: Env):
    path = env.tmp / "extra.yaml"
    path.write_text("benchmark:\n  n_tasks: 3\n")
    return env.base(config_path=[path], benchmark_params=DROP), lambda o: len(o.rows()) == 3 or _fail(o)


@case("overrides")
def _overrides(env: Env):
    kw = env.base(overrides=["benchmark.n_tasks=3"], benchmark_params=DROP)
    return kw, lambda o: len(o.rows()) == 3 or _fail(o)


@case("benchmark_params")
def _benchmark_params(env: Env):  # synthetic's default is 10 tasks
    return env.base(), lambda o: len(o.rows()) == 2 or _fail(o)


@case("harness_params")
def _harness_params(env: Env):
    return env.base(harness_params=env.recording(tag="hp")), lambda o: _tags(o) == ["hp", "hp"] or _fail(o)


@case("execution_params")
def _execution_params(env: Env):
    kw = env.base(
        harness_params=env.recording(sleep_s=30),
        benchmark_params={"n_tasks": 1},
        execution_params={"timeouts": {"agent": 0.2}},
    )
    return kw, lambda o: [r["exit_status"] for r in o.rows()] == ["agent_timeout"] or _fail(o)


@case("enabled_recipes", "recipe_dirs")
def _recipes(env: Env):
    folder = env.tmp / "recipes"
    folder.mkdir()
    (folder / "kwrecipe.yaml").write_text("description: sets the harness tag\nconfig:\n  harness:\n    tag: recipe\n")

    def check(o: Outcome) -> None:  # the recipe exists only in that folder: unknown without recipe_dirs
        assert _tags(o) == ["recipe", "recipe"] and "kwrecipe" in o.summary()["metadata"]["config"]["recipes"]

    return env.base(recipe_dirs=[folder], enabled_recipes=["kwrecipe"]), check


# ------------------------------------------------------------------------------------------ runtime
@case("task_concurrency")
def _concurrency(env: Env):  # the default is 4
    kw = env.base(harness_params=env.recording(sleep_s=0.3), benchmark_params={"n_tasks": 4}, task_concurrency=2)
    return kw, lambda o: RecordingHarness.max_running == 2 or _fail(o)


@case("provider_limits")
def _provider_limits(env: Env):
    kw = env.base(
        harness_params=env.recording(sleep_s=0.3), benchmark_params={"n_tasks": 3}, provider_limits={"memory": 1}
    )
    return kw, lambda o: RecordingHarness.max_running == 1 or _fail(o)


@case("env_open_qps")
def _env_open_qps(env: Env):
    def check(o: Outcome) -> None:  # opens spaced 0.25 s apart (without a limit they start together)
        starts = sorted(info["started"] for info in o.infos())
        # turns 0.25 s apart; each start is seen a scheduling delay after its turn, so the span is what is
        # robust on a loaded machine (without a limit every open starts within milliseconds)
        assert starts[-1] - starts[0] >= 0.25 * (3 - 1) - 0.1, starts

    return env.base(benchmark_params={"n_tasks": 3}, env_open_qps={"memory": 4}), check


@case("results_dir", "run_name", "run_id")
def _where(env: Env):
    def check(o: Outcome) -> None:
        meta = json.loads((env.out / "kw" / "r1" / "summary.json").read_text())["metadata"]
        assert (meta["run_name"], meta["run_id"]) == ("kw", "r1")

    return env.base(), check


@case("data_dir")
def _data_dir(env: Env):
    data = env.tmp / "data"
    return env.base(data_dir=data), lambda o: _field(o, "data_dir") == [str(data)] * 2 or _fail(o)


@case("timeout_seconds")
def _timeout(env: Env):
    def check(o: Outcome) -> None:
        assert raised(o, RunTimeoutError, 124) and o.run_json()["status"] == "timeout"

    kw = env.base(harness_params=env.recording(sleep_s=30), benchmark_params={"n_tasks": 1}, timeout_seconds=1)
    return kw, check


@case("progress")
def _progress(env: Env):
    return env.base(progress="plain"), lambda o: "syn-1: completed reward=1.0" in o.err or _fail(o)


@case("log_level")
def _log_level(env: Env):  # the default console level is INFO
    return env.base(log_level="DEBUG"), lambda o: "kw-debug-line syn-0" in o.err or _fail(o)


@case("file_log_level")
def _file_log_level(env: Env):  # the default file level is DEBUG
    def check(o: Outcome) -> None:
        text = (o.run_dir / "run.log").read_text()
        assert "kw-warning-line syn-0" in text and "kw-info-line" not in text

    return env.base(file_log_level="WARNING"), check


@case("log_file")
def _log_file(env: Env):
    path = env.tmp / "elsewhere.log"

    def check(o: Outcome) -> None:
        assert "kw-info-line syn-0" in path.read_text() and not (o.run_dir / "run.log").exists()
        assert o.summary()["paths"]["log"] == str(path)

    return env.base(log_file=path), check


@case("on_progress")
def _on_progress(env: Env):
    events: list[Any] = []
    kw = env.base(on_progress=events.append)
    return kw, lambda o: sum(e.kind == "attempt_finished" for e in events) == 2 or _fail(o)


@case("auto_install_dependencies")
def _auto_install(env: Env):  # components and attempts are told to install what is missing
    kw = env.base(auto_install_dependencies=True)
    return kw, lambda o: _field(o, "auto_install") == [[True, True]] * 2 or _fail(o)


# ------------------------------------------------------------------------------------------ execution
@case("max_retries")
def _max_retries(env: Env):
    kw = env.base(
        harness_params={"_target_": "tests.helpers.ProbeHarness", "fail_times": 1, "error": "sandbox"}, max_retries=1
    )
    return kw, lambda o: [(r["attempts"], r["status"]) for r in o.rows()] == [(2, "completed")] * 2 or _fail(o)


@case("n_attempts")
def _n_attempts(env: Env):  # the default is one sample per task
    def check(o: Outcome) -> None:
        assert sorted((r["task_id"], r["sample"], r["attempts"]) for r in o.rows()) == [
            (t, j, 1) for t in ("syn-0", "syn-1") for j in (1, 2, 3)
        ]
        assert o.summary()["metrics"]["pass_at_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}

    return env.base(n_attempts=3), check


@case("retry_pattern_list")
def _patterns(env: Env):  # an AgentError is not retryable by type: only the pattern retries it
    kw = env.base(harness_params=env.recording(fail_first=True), max_retries=1, retry_pattern_list=["flaky first"])
    return kw, lambda o: [(r["attempts"], r["status"]) for r in o.rows()] == [(2, "completed")] * 2 or _fail(o)


@case("enable_analysis")
def _analysis(env: Env):
    return env.base(enable_analysis=True), lambda o: (o.run_dir / "analysis.json").is_file() or _fail(o)


@case("integrity_scan")
def _integrity_scan(env: Env):  # the default scans: every row carries its integrity verdict
    def check(o: Outcome) -> None:
        assert o.rows() and all("integrity" not in r for r in o.rows()) or _fail(o)
        assert "integrity_flagged" not in o.summary()["metrics"]

    return env.base(integrity_scan=False), check


def _judge(env: Env) -> dict[str, Any]:
    return {"judge": {"id": "kw-judge", "base_url": env.server.base_url, "api_key": KEY, "api_protocol": "openai-chat"}}


@case("integrity_review")
def _integrity_review(env: Env):  # the default reviews nothing: no integrity_review in the metrics
    def check(o: Outcome) -> None:
        review = o.summary()["metrics"]["integrity_review"]
        assert review["model"] == "kw-judge" and review["rubric"] == "built-in" or _fail(o)

    return env.base(integrity_review=True, model_roles=_judge(env)), check


@case("integrity_review_params")
def _integrity_review_params(env: Env):  # the default rubric is the built-in one
    rubric = env.tmp / "rubric.md"
    rubric.write_text("house rubric")

    def check(o: Outcome) -> None:
        assert o.summary()["metrics"]["integrity_review"]["rubric"] == str(rubric) or _fail(o)

    params = {"rubric": str(rubric), "sample": 2}
    return env.base(integrity_review=True, integrity_review_params=params, model_roles=_judge(env)), check


@case("analysis_params")
def _analysis_params(env: Env):  # the default top_n is 10
    def check(o: Outcome) -> None:
        assert json.loads((o.run_dir / "analysis.json").read_text())["params"]["top_n"] == 1

    return env.base(enable_analysis=True, analysis_params={"top_n": 1}), check


# ------------------------------------------------------------------------------------------ cache and budgets
PRICED = "model.prices={input_per_mtok: 1000000, output_per_mtok: 0}"  # $1 a prompt token: any call is costly


@case("model_cache")
def _model_cache(env: Env):  # the default is off: the same run again calls the endpoint again
    data = env.tmp / "data"
    _sdk(env.model(model_cache="read_write", data_dir=data, run_id="c0"))
    made = len(env.server.requests)

    def check(o: Outcome) -> None:
        assert len(env.server.requests) == made and o.summary()["metrics"]["cache_hits"] == 1, o.summary()["metrics"]

    return env.model(model_cache="read_only", data_dir=data), check


@case("replay")
def _replay(env: Env):  # without it the endpoint is called again
    recorded = _sdk(env.model(run_id="rec"))
    made = len(env.server.requests)

    def check(o: Outcome) -> None:
        assert len(env.server.requests) == made and o.rows()[0]["reward"] == recorded.rows()[0]["reward"]
        assert o.summary()["metrics"]["cache_hits"] == 1

    return env.model(replay=recorded.run_dir), check


def _budgeted(env: Env, **over: Any) -> dict[str, Any]:
    return env.model(benchmark_params={"n_tasks": 3}, task_concurrency=1, overrides=[PRICED], **over)


def _stopped(o: Outcome, n_rows: int) -> None:
    assert raised(o, BudgetExhaustedError, 3), (o.error, o.code)
    assert o.summary()["metadata"]["status"] == "stopped_budget" and len(o.rows()) == n_rows, o.rows()


@case("cost_limit_usd")
def _cost_limit(env: Env):  # the default is no limit: all three tasks would run
    return _budgeted(env, cost_limit_usd=0.5), lambda o: _stopped(o, 1)


@case("token_limit")
def _token_limit(env: Env):
    return _budgeted(env, token_limit=1), lambda o: _stopped(o, 1)


@case("budget_policy")
def _budget_policy(env: Env):  # the default (finish) would let both attempts in flight finish: two rows
    harness = {"_target_": "tests.helpers.ModelEchoHarness", "sleep_s": 5}
    kw = env.model(benchmark_params={"n_tasks": 2}, harness_params=harness, token_limit=1, budget_policy="cancel")
    return kw, lambda o: _stopped(o, 0)


@case("attempt_cost_limit_usd")
def _attempt_cost_limit(env: Env):  # without it the harness makes its three calls
    def check(o: Outcome) -> None:
        row = o.rows()[0]
        assert (row["status"], row["limit_hit"], len(env.server.requests)) == ("completed", "cost_limit", 1), row

    harness = {"_target_": "tests.helpers.ModelEchoHarness", "turns": 3}
    return env.model(harness_params=harness, overrides=[PRICED], attempt_cost_limit_usd=0.5), check


# ------------------------------------------------------------------------------------------ reuse
@case("reuse")
def _reuse(env: Env):
    _sdk(env.base())
    RecordingHarness.reset()

    def check(o: Outcome) -> None:  # every task was finished: nothing runs again
        assert RecordingHarness.calls == [] and o.summary()["metrics"]["n_tasks"] == 2

    return env.base(run_id=DROP, reuse=True), check


@case("reuse_run_id")
def _reuse_run_id(env: Env):
    failing = env.recording(fail_first=True)
    _sdk(env.base(run_id="a", harness_params=failing))  # both tasks end in an error
    _sdk(env.base(run_id="b"))  # the latest run: both completed, other components
    RecordingHarness.reset()

    def check(o: Outcome) -> None:  # run a's two failed tasks ran again, now completed
        meta = o.summary()["metadata"]
        assert sorted(RecordingHarness.calls) == ["syn-0", "syn-1"] and (meta["run_id"], meta["status"]) == (
            "a",
            "completed",
        )

    return env.base(run_id=DROP, reuse=True, reuse_run_id="a", harness_params=failing), check


@case("checkpoint_resume")
def _checkpoint_resume(env: Env):
    first = _sdk(env.base())
    attempt = first.run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-1" / "result.json"  # as if verification crashed
    attempt.write_text(json.dumps({**json.loads(attempt.read_text()), "status": "error"}))
    rows = [line for line in (first.run_dir / "results.jsonl").read_text().splitlines() if "syn-0" not in line]
    (first.run_dir / "results.jsonl").write_text("\n".join(rows) + "\n")
    RecordingHarness.reset()

    def check(o: Outcome) -> None:  # with checkpoint resume syn-0 would only be verified again (no agent call)
        assert (
            RecordingHarness.calls == ["syn-0"] and (o.run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-2").is_dir()
        )

    return env.base(run_id=DROP, reuse=True, checkpoint_resume=False), check


# ------------------------------------------------------------------------------------------ the runner
def _fail(o: Outcome) -> None:
    raise AssertionError(f"no effect: code={o.code} error={o.error!r}\nrows={o.rows()}\nstderr={o.err[-2000:]}")


def _tags(o: Outcome) -> list[str]:
    return _field(o, "tag")


def _field(o: Outcome, key: str) -> list[Any]:
    return [info[key] for info in o.infos()]


def _where_it_runs(kw: dict[str, Any]) -> Path:
    return Path(kw["results_dir"]) / "kw" / str(kw.get("reuse_run_id") or kw.get("run_id") or "r1")


def _sdk(kw: dict[str, Any]) -> Outcome:
    out = Outcome(run_dir=_where_it_runs(kw))
    try:
        out.result = run_evaluation(**kw)
    except (AgentCompassError, TimeoutError) as exc:
        out.error = exc
    return out


def _cli(kw: dict[str, Any]) -> Outcome:
    argv = to_argv(kw)
    assert argv is not None
    return Outcome(run_dir=_where_it_runs(kw), code=main(["run", *argv]))


def _surfaces(name: str) -> list[str]:
    row = options.by_name()[name]
    return ["sdk", "cli"] if row.cli is not None or name == "reuse_run_id" else ["sdk"]


PARAMS = [(name, surface) for name in sorted(CASES) for surface in _surfaces(name)]


def test_every_keyword_of_run_evaluation_has_a_case():
    assert set(inspect.signature(run_evaluation).parameters) == set(CASES)
    assert [p.kind for p in inspect.signature(run_evaluation).parameters.values()] == [
        inspect.Parameter.KEYWORD_ONLY
    ] * len(CASES)


@pytest.mark.parametrize("name,surface", PARAMS, ids=[f"{n}-{s}" for n, s in PARAMS])
def test_run_keyword_takes_effect(name, surface, tmp_path, capsys):
    RecordingHarness.reset()
    with ScriptedModelServer(default_reply="done", api_key=KEY) as server:
        env = Env(tmp_path, server)
        kw, check = CASES[name](env)
        capsys.readouterr()
        outcome = _sdk(kw) if surface == "sdk" else _cli(kw)
        captured = capsys.readouterr()
        outcome.out, outcome.err = captured.out, captured.err
        if outcome.error is not None and not isinstance(outcome.error, (RunTimeoutError, BudgetExhaustedError)):
            raise AssertionError(f"{name}: {outcome.error!r}")
        if outcome.code not in (None, 0, 124, 3):
            raise AssertionError(f"{name}: exit {outcome.code}: {outcome.err[-2000:]}")
        check(outcome)


def test_an_unknown_keyword_is_a_type_error_naming_it():
    from agentcompass import launch

    with pytest.raises(TypeError, match="run_evaluation\\(\\) got an unexpected keyword argument 'task_concurency'"):
        run_evaluation(benchmark="synthetic", task_concurency=2)
    with pytest.raises(TypeError, match="launch\\(\\) got an unexpected keyword argument 'reuse'"):
        launch({"requests": [{"name": "a"}]}, reuse=True)  # a request setting, not a launch keyword
