"""Every keyword of ``launch`` (and its ``agentcompass launch`` option) takes effect, given an
``OrchestrationSpec`` and given a resolved ``Orchestration`` alike; a keyword that cannot apply is a
ConfigError. The list of cases must equal the signature, so a new keyword without a case fails."""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentcompass import (
    LaunchSettings,
    OrchestrationDefaults,
    OrchestrationSpec,
    RunRequestSpec,
    RunTimeoutError,
    launch,
)
from agentcompass._cli.main import main
from agentcompass._config import options
from agentcompass._launch import resolve_orchestration
from agentcompass.errors import ConfigError
from tests._sdk.keyword_support import RECORDING, Outcome, RecordingHarness, to_argv

NAMES = ("a", "b")


@dataclass
class Launched:
    out: Path
    result: Any = None
    error: BaseException | None = None
    code: int | None = None
    err: str = ""
    elapsed: float = 0.0
    events: list[Any] = field(default_factory=list)

    def run(self, name: str) -> Outcome:
        return Outcome(run_dir=self.out / name / "r1")

    def infos(self) -> list[dict[str, Any]]:
        return [info for name in NAMES for info in self.run(name).infos()]

    def timed_out(self) -> bool:
        return isinstance(self.error, RunTimeoutError) if self.code is None else self.code == 124


@dataclass
class Env:
    tmp: Path

    @property
    def out(self) -> Path:
        return self.tmp / "out"

    def spec(self, *, n_tasks: int | None = 2, concurrency: int = 4, **harness: Any) -> OrchestrationSpec:
        benchmark = {"id": "synthetic", **({"n_tasks": n_tasks} if n_tasks is not None else {})}
        return OrchestrationSpec(
            name="kwl",
            task_concurrency=concurrency,
            defaults=OrchestrationDefaults(
                benchmark=benchmark,
                harness={"id": "oracle", "_target_": RECORDING, **harness},
                environment={"id": "memory"},
                output={"run_id": "r1"},
            ),
            requests=[RunRequestSpec(name=name) for name in NAMES],
        )

    def keywords(self, **kw: Any) -> dict[str, Any]:
        return {"results_dir": self.out, "progress": "none", **kw}


Case = Callable[[Env], tuple[OrchestrationSpec, dict[str, Any], Callable[[Launched, str], None]]]
CASES: dict[str, Case] = {}


def case(*names: str) -> Callable:
    def register(fn: Case) -> Case:
        for name in names:
            CASES[name] = fn
        return fn

    return register


def _completed(r: Launched) -> None:
    assert r.error is None and r.code in (None, 0), (r.error, r.code, r.err[-2000:])
    if r.result is not None:
        assert {k: v.status for k, v in r.result.requests.items()} == {"a": "completed", "b": "completed"}


@case("orchestration")
def _orchestration(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert [len(r.run(name).rows()) for name in NAMES] == [2, 2]

    return env.spec(), env.keywords(), check


@case("config_path")
def _config_path(env: Env):
    path = env.tmp / "extra.yaml"
    path.write_text("benchmark:\n  n_tasks: 3\n")

    def check(r: Launched, surface: str) -> None:
        if surface == "resolved":  # its requests are composed already: the files cannot apply
            assert isinstance(r.error, ConfigError) and "config_path" in str(r.error)
            return
        _completed(r)
        assert [len(r.run(name).rows()) for name in NAMES] == [3, 3]

    return env.spec(n_tasks=None), env.keywords(config_path=[path]), check


@case("settings")
def _settings(env: Env):
    def check(r: Launched, surface: str) -> None:  # the object's task_concurrency and log level; a keyword wins
        _completed(r)
        assert RecordingHarness.max_running == 1 and r.result.pool["size"] == 1
        assert "kw-debug-line syn-0" not in r.err  # log_level=DEBUG of the object, WARNING of the keyword

    settings = LaunchSettings(task_concurrency=1, log_level="DEBUG", results_dir=env.tmp / "elsewhere")
    return env.spec(sleep_s=0.2), env.keywords(settings=settings, log_level="WARNING"), check


@case("task_concurrency")
def _concurrency(env: Env):
    def check(r: Launched, surface: str) -> None:  # the spec says 4
        _completed(r)
        assert RecordingHarness.max_running == 1 and (r.result is None or r.result.pool["size"] == 1)

    return env.spec(sleep_s=0.2), env.keywords(task_concurrency=1), check


@case("results_dir")
def _results_dir(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert all((env.out / name / "r1" / "summary.json").is_file() for name in NAMES)

    return env.spec(), env.keywords(), check


@case("data_dir")
def _data_dir(env: Env):
    data = env.tmp / "data"

    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert [info["data_dir"] for info in r.infos()] == [str(data)] * 4

    return env.spec(), env.keywords(data_dir=data), check


@case("timeout_seconds")
def _timeout(env: Env):
    def check(r: Launched, surface: str) -> None:
        assert r.timed_out() and r.run("a").run_json()["status"] == "timeout", (r.error, r.code)

    return env.spec(n_tasks=1, sleep_s=30), env.keywords(timeout_seconds=1), check


@case("cleanup_grace_seconds")
def _grace(env: Env):
    def check(r: Launched, surface: str) -> None:
        # each attempt was cancelled and lingered on; the run ended after the 0.3 s grace without waiting for the
        # 3 s linger to end (the default grace, 10 s, would: both attempts would be in `lingered`)
        assert r.timed_out() and sorted(RecordingHarness.cancelled) == ["syn-0", "syn-0"], (r.error, r.code)
        assert RecordingHarness.lingered == []

    kw = env.keywords(timeout_seconds=1, cleanup_grace_seconds=0.3)
    return env.spec(n_tasks=1, sleep_s=30, linger_s=3), kw, check


@case("provider_limits")
def _provider_limits(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert RecordingHarness.max_running == 1

    return env.spec(sleep_s=0.2), env.keywords(provider_limits={"memory": 1}), check


@case("env_open_qps")
def _env_open_qps(env: Env):
    def check(r: Launched, surface: str) -> None:  # one limit across both requests
        _completed(r)
        starts = sorted(info["started"] for info in r.infos())
        # turns 0.25 s apart; each start is seen a scheduling delay after its turn, so the span is what is
        # robust on a loaded machine (without a limit every open starts within milliseconds)
        assert starts[-1] - starts[0] >= 0.25 * (4 - 1) - 0.1, starts

    return env.spec(), env.keywords(env_open_qps={"memory": 4}), check


@case("progress")
def _progress(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert "[a] " in r.err and "[b] " in r.err, r.err[-2000:]

    return env.spec(), env.keywords(progress="plain"), check


@case("log_level")
def _log_level(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert "kw-debug-line syn-0" in r.err

    return env.spec(), env.keywords(log_level="DEBUG"), check


@case("file_log_level")
def _file_log_level(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        for name in NAMES:
            text = (r.run(name).run_dir / "run.log").read_text()
            assert "kw-warning-line syn-0" in text and "kw-info-line" not in text

    return env.spec(), env.keywords(file_log_level="WARNING"), check


@case("log_file")
def _log_file(env: Env):
    path = env.tmp / "elsewhere.log"

    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert path.read_text().count("kw-info-line syn-0") == 2  # once per request
        assert not (r.run("a").run_dir / "run.log").exists()
        assert r.result.requests["a"].paths["log"] == str(path)

    return env.spec(), env.keywords(log_file=path), check


@case("auto_install_dependencies")
def _auto_install(env: Env):
    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert [info["auto_install"] for info in r.infos()] == [[True, True]] * 4

    return env.spec(), env.keywords(auto_install_dependencies=True), check


@case("on_progress")
def _on_progress(env: Env):
    events: list[Any] = []

    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert {e.request for e in events if e.kind == "attempt_finished"} == set(NAMES)

    return env.spec(), env.keywords(on_progress=events.append), check


@case("on_request_finished")
def _on_request_finished(env: Env):
    finished: list[Any] = []

    def check(r: Launched, surface: str) -> None:
        _completed(r)
        assert sorted(o.name for o in finished) == list(NAMES)

    return env.spec(), env.keywords(on_request_finished=finished.append), check


def _budgeted(env: Env, **kw: Any):  # without a budget all 4 attempts (2 requests x 2 tasks) would run
    from agentcompass.testing.scripted_server import ScriptedModelServer

    server = ScriptedModelServer(default_reply="done").start()
    model = {"id": "kw-model", "base_url": server.base_url, "api_protocol": "openai-chat"}
    model["prices"] = {"input_per_mtok": 1e6, "output_per_mtok": 0}  # any call costs more than $1
    spec = env.spec(concurrency=1)
    spec.defaults.model, spec.defaults.harness = model, {"id": "oracle", "_target_": "tests.helpers.ModelEchoHarness"}

    def check(r: Launched, surface: str) -> None:
        try:
            assert len(server.requests) == 1 and r.error is None, (server.requests, r.error)
            assert sum(len(r.run(name).rows()) for name in NAMES) == 1
            if r.result is not None:
                assert {o.status for o in r.result.requests.values()} == {"stopped_budget"}
            else:
                assert r.code == 3
        finally:
            server.stop()

    return spec, env.keywords(**kw), check


@case("orchestration_cost_limit_usd")
def _orchestration_cost(env: Env):
    return _budgeted(env, orchestration_cost_limit_usd=1.0)


@case("orchestration_token_limit")
def _orchestration_tokens(env: Env):
    return _budgeted(env, orchestration_token_limit=1)


def _sdk(env: Env, spec: OrchestrationSpec, kw: dict[str, Any], resolved: bool) -> Launched:
    out = Launched(env.out)
    target = resolve_orchestration(spec) if resolved else spec
    start = time.monotonic()
    try:
        out.result = launch(target, **kw)
    except (ConfigError, RunTimeoutError) as exc:
        out.error = exc
    out.elapsed = time.monotonic() - start
    return out


def _cli(env: Env, spec: OrchestrationSpec, kw: dict[str, Any]) -> Launched:
    path = env.tmp / "orchestration.yaml"
    path.write_text(yaml.safe_dump(json.loads(spec.model_dump_json(exclude_none=True))))
    argv = to_argv(kw)
    assert argv is not None
    out = Launched(env.out)
    start = time.monotonic()
    out.code = main(["launch", str(path), *argv])
    out.elapsed = time.monotonic() - start
    return out


def _surfaces(name: str) -> list[str]:
    row = options.by_name().get(name)
    cli = name != "settings" and (row is None or row.cli is not None)  # the object is the SDK's form
    return ["spec", "resolved", *(["cli"] if cli else [])]


PARAMS = [(name, surface) for name in sorted(CASES) for surface in _surfaces(name)]


def test_every_keyword_of_launch_has_a_case():
    assert set(inspect.signature(launch).parameters) == set(CASES)


@pytest.mark.parametrize("name,surface", PARAMS, ids=[f"{n}-{s}" for n, s in PARAMS])
def test_launch_keyword_takes_effect(name, surface, tmp_path, capsys):
    RecordingHarness.reset()
    env = Env(tmp_path)
    spec, kw, check = CASES[name](env)
    capsys.readouterr()
    launched = _sdk(env, spec, kw, surface == "resolved") if surface != "cli" else _cli(env, spec, kw)
    launched.err = capsys.readouterr().err
    check(launched, surface)
