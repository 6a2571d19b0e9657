"""Reachability without internet: a container with no network (``network: none``) and the ``main`` service of a
compose task (with and without network) reach the gateway; the container without network reaches it and nothing
else (no route to this host's other ports, none to the internet), and the listener inside it stops with the
attempt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcompass.environments.docker import DockerConfig, DockerProvider
from agentcompass.interfaces import ComponentContext, EnvSpec
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import BASE_IMAGE, SESSION, TEST_LABELS
from tests.gateway.support import rig
from tests.gateway.test_reach_docker import CLIENT

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("docker_engine")]

PROBE = r"""
import socket, sys
for host, port in [(sys.argv[1], int(sys.argv[2])), ("1.1.1.1", 80), ("172.17.0.1", int(sys.argv[2]))]:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print("reached", host, port)
    except OSError as exc:
        print("refused", host, port, type(exc).__name__)
print(open("/proc/net/dev").read())
"""


def test_a_container_without_network_reaches_the_gateway_and_nothing_else(tmp_path: Path) -> None:
    async def main() -> None:
        with ScriptedModelServer(["hello offline"] * 3) as server:
            async with rig(server, "anthropic-messages", tmp_path) as r:
                provider = DockerProvider(DockerConfig())
                spec = EnvSpec(
                    task_id="gw-off", benchmark=f"test-{SESSION}", image=BASE_IMAGE, labels=dict(TEST_LABELS)
                )
                spec.network = "none"
                env = await provider.open(spec)
                try:
                    ep = await r.gateway.endpoint(r.session, env)
                    assert ep.base_url.startswith("http://127.0.0.1:")
                    port = ep.base_url.rsplit(":", 1)[1]
                    await env.write_file("/tmp/client.py", CLIENT)
                    await env.write_file("/tmp/probe.py", PROBE)
                    res = await env.exec(["python3", "/tmp/client.py", ep.anthropic_base_url, ep.token], timeout=60)
                    assert res.stdout.startswith("200 text/event-stream"), res.output
                    assert "hello offline" in res.stdout and "event: message_stop" in res.stdout
                    host_port = r.base_url.rsplit(":", 1)[1]  # the gateway's own loopback listener on this host
                    probe = await env.exec(["python3", "/tmp/probe.py", "127.0.0.1", port], timeout=60)
                    lines = probe.stdout.splitlines()
                    assert lines[0] == f"reached 127.0.0.1 {port}"
                    assert lines[1].startswith("refused 1.1.1.1 80") and lines[2].startswith("refused 172.17.0.1")
                    assert "eth0" not in probe.stdout  # loopback only
                    other = await env.exec(["python3", "/tmp/probe.py", "127.0.0.1", host_port], timeout=60)
                    assert other.stdout.splitlines()[0].startswith(f"refused 127.0.0.1 {host_port}")
                    r.gateway.close_session(r.session)  # the attempt ended: its listener inside stops
                    await asyncio.sleep(0.5)
                    after = await env.exec(["python3", "/tmp/probe.py", "127.0.0.1", port], timeout=60)
                    assert after.stdout.splitlines()[0].startswith(f"refused 127.0.0.1 {port}"), after.output
                finally:
                    await env.close()
                    await provider.aclose()

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("network", ["bridge", "none"])
def test_the_main_service_of_a_compose_task_reaches_the_gateway(network: str, tmp_path: Path) -> None:
    from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
    from tests.benchmarks.terminal_bench.compose_fixtures import FETCH, compose_tasks
    from tests.environments.compose_support import remove_session_projects

    root = compose_tasks(tmp_path / "tasks")
    bench = TerminalBenchBenchmark(TerminalBenchConfig(dataset_path=str(root)), None)
    task = {t.id: t for t in bench.load()}["web-secret"]

    async def main() -> None:
        with ScriptedModelServer(["hello compose"] * 3) as server:
            async with rig(server, "openai-chat", tmp_path) as r:  # a Messages agent: translated
                ctx = ComponentContext(Path("/tmp"), run_id=f"gw-compose-{SESSION}")
                provider = DockerProvider(DockerConfig(labels=TEST_LABELS), ctx)
                spec = bench.env_spec(task)
                spec.network = network
                env = await provider.open(spec)
                try:
                    ep = await r.gateway.endpoint(r.session, env)
                    assert ep.base_url.startswith("http://127.0.0.1:") == (network == "none")
                    await env.write_file("/tmp/client.py", CLIENT)
                    res = await env.exec(["python3", "/tmp/client.py", ep.anthropic_base_url, ep.token], timeout=60)
                    assert res.stdout.startswith("200 text/event-stream") and "hello compose" in res.stdout, res.output
                    side = await env.exec(FETCH.format(url="http://web:8000/secret.txt"), timeout=60)
                    assert side.stdout.strip() == "s3cr3t-42", side.output  # the task's own services still
                    if network == "none":
                        out = await env.exec(FETCH.format(url="http://1.1.1.1/"), timeout=60)
                        assert out.exit_code != 0  # no internet
                finally:
                    await env.close()
                    await provider.aclose()
                    remove_session_projects()

    asyncio.run(main())


def test_a_run_of_a_task_without_internet_gives_its_agent_the_gateway(tmp_path: Path) -> None:
    """The demo's json-transform task denies internet (task.toml ``allow_internet = false``): in docker its
    container has no network, and an agent calling the API itself still gets its answer, recorded."""
    import json

    from agentcompass import run_evaluation

    with ScriptedModelServer(["offline answer"] * 2) as srv:
        result = run_evaluation(
            benchmark="demo",
            harness="nop",
            environment="docker",
            model="gw-model",
            overrides=["harness._target_=tests.helpers.GatewayEchoHarness"],
            benchmark_params={"sample_ids": ["json-transform"]},
            environment_params={"labels": TEST_LABELS},
            model_base_url=srv.base_url,
            model_api_key="sk-offline-secret-9876",
            model_api_protocol="openai-chat",
            results_dir=str(tmp_path / "results"),
            progress="none",
        )
    assert result["metrics"]["n_errors"] == 0
    (path,) = (tmp_path / "results").rglob("result.json")
    attempt = json.loads(path.read_text())
    assert attempt["agent"]["submission"] == "offline answer"
    assert attempt["agent"]["info"]["base"].startswith("http://127.0.0.1:")  # inside the container's namespace
    (line,) = [json.loads(x) for x in (path.parent / "model_calls.jsonl").read_text().splitlines()]
    assert line["status"] == "ok" and line["source"] == "gateway"
