"""Compose tasks in the docker environment against a real engine and the real ``docker compose`` v2 CLI: the
project's contract (main service, side services first on the project network, resources and env on main, files
in and out of main, labels, an internal network for tasks without internet), parallel attempts of one task,
teardown, and a missing Compose."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.environments.docker import DockerConfig, DockerProvider, compose_cli
from agentcompass.environments.docker.compose import PROJECT_LABEL
from agentcompass.errors import DependencyError
from agentcompass.interfaces import ComponentContext
from tests.benchmarks.terminal_bench.compose_fixtures import FETCH, KV_PUT, compose_tasks
from tests.environments.compose_support import nothing_left, project_resources, remove_session_projects
from tests.environments.docker_support import SESSION, TEST_LABELS, api

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.usefixtures("docker_engine")]
RUN_ID = f"compose-test-{SESSION}"


@pytest.fixture(autouse=True)
def _teardown():
    yield
    remove_session_projects()


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = compose_tasks(tmp_path_factory.mktemp("compose-tasks"))
    bench = TerminalBenchBenchmark(TerminalBenchConfig(dataset_path=str(root)), None)
    return bench, {t.id: t for t in bench.load()}


def with_provider(body, **config):
    async def main():
        config.setdefault("labels", TEST_LABELS)
        provider = DockerProvider(DockerConfig(**config), ComponentContext(Path("/tmp"), run_id=RUN_ID))
        try:
            return await body(provider)
        finally:
            await provider.aclose()

    return asyncio.run(main())


def test_compose_project_contract(tasks, tmp_path):
    bench, by_id = tasks
    task = by_id["web-secret"]

    async def body(provider):
        spec = bench.env_spec(task)
        assert spec.compose_file.name == "docker-compose.yaml" and spec.dockerfile_dir is not None
        spec.network = "none"  # a task without internet: services still reach each other
        env = await provider.open(spec)
        name = env.describe()["compose_project"]
        try:
            await bench.setup(task, env, None)
            fetched = await env.exec(FETCH.format(url="http://web:8000/secret.txt"), timeout=60)
            assert fetched.exit_code == 0 and fetched.stdout.strip() == "s3cr3t-42", fetched.output
            probe = await env.exec("echo $APP_MODE; pwd; ls -d /logs/agent /logs/verifier /logs/artifacts", timeout=30)
            assert probe.stdout.split() == ["compose", "/app", "/logs/agent", "/logs/artifacts", "/logs/verifier"]
            await env.write_file("/app/in.txt", "into main\n")
            await env.exec("cp /app/in.txt /logs/verifier/out.txt", timeout=30)
            await env.download("/logs/verifier/out.txt", tmp_path / "out.txt")
            assert (tmp_path / "out.txt").read_text() == "into main\n"
            return name, _inspect(name)
        finally:
            await env.close()

    name, seen = with_provider(body)
    main, web = seen["main"], seen["web"]
    assert main["HostConfig"]["NanoCpus"] == 10**9 and main["HostConfig"]["Memory"] == 512 * 1024 * 1024
    assert not web["HostConfig"]["NanoCpus"] and not web["HostConfig"]["Memory"]  # resources are main's only
    for info in (main, web):
        labels = info["Config"]["Labels"]
        assert labels[PROJECT_LABEL] == name and labels["agentcompass.run_id"] == RUN_ID
        assert labels["agentcompass.test.session"] == SESSION and labels["agentcompass.owner"]
    assert seen["network"]["Internal"] is True and seen["network"]["Labels"][PROJECT_LABEL] == name
    assert name.startswith(f"ac_compose-test-{SESSION.lower()}_web-secret_")
    assert nothing_left(name), project_resources(name)


def _inspect(name: str) -> dict:
    client = api()
    out = {}
    for c in client.containers(filters={"label": [f"com.docker.compose.project={name}"]}):
        out[c["Labels"]["com.docker.compose.service"]] = client.inspect_container(c["Id"])
    [network] = client.networks(filters={"label": [f"com.docker.compose.project={name}"]})
    out["network"] = client.inspect_network(network["Id"])
    return out


def test_parallel_attempts_of_one_task_do_not_collide(tasks):
    bench, by_id = tasks
    task = by_id["kv-record"]

    async def body(provider):
        envs = await asyncio.gather(*(provider.open(bench.env_spec(task)) for _ in range(2)))
        names = [e.describe()["compose_project"] for e in envs]
        try:
            for env in envs:
                await bench.setup(task, env, None)
            put = await envs[0].exec(KV_PUT, timeout=60)  # state in the first project's kv service only
            assert put.exit_code == 0, put.output
            grades = [await bench.grade(task, env, None, None) for env in envs]
            assert [g.reward for g in grades] == [1.0, 0.0], [g.log for g in grades]
            volumes = [project_resources(n)["volumes"] for n in names]
            assert all(len(v) == 1 for v in volumes) and volumes[0] != volumes[1]
            return names
        finally:
            await asyncio.gather(*(env.close() for env in envs))

    names = with_provider(body)
    assert len(set(names)) == 2
    assert all(nothing_left(n) for n in names), [project_resources(n) for n in names]


def test_missing_compose_fails_with_one_line_naming_the_task_and_the_install_command(tasks, tmp_path, monkeypatch):
    bench, by_id = tasks
    fake = tmp_path / "docker-compose"  # Debian's v1 answers like this
    fake.write_text("#!/bin/sh\necho 'docker-compose version 1.29.2, build unknown'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("AGENTCOMPASS_DOCKER_COMPOSE", str(fake))
    compose_cli.compose_command(refresh=True)
    try:
        with pytest.raises(DependencyError) as info:
            with_provider(lambda provider: provider.open(bench.env_spec(by_id["web-secret"])))
    finally:
        monkeypatch.delenv("AGENTCOMPASS_DOCKER_COMPOSE")
        compose_cli.compose_command(refresh=True)
    message = str(info.value)
    assert "\n" not in message and message.startswith("task web-secret: ")
    assert "needs Docker Compose v2" in message and "pip install 'agentcompass[compose]'" in message
    assert json.dumps(info.value.error_class) == '"config"' and info.value.retryable is False
