"""A container reaches the gateway on its network's gateway address, with its attempt's token and nothing else."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentcompass.environments.docker import DockerConfig, DockerProvider
from agentcompass.interfaces import EnvSpec
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import BASE_IMAGE, SESSION, TEST_LABELS
from tests.gateway.support import rig

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("docker_engine")]

# a streamed Messages call from inside the container, as Claude Code makes it (x-api-key, ?beta=true)
CLIENT = r"""
import json, sys, urllib.request, urllib.error
url, token = sys.argv[1], sys.argv[2]
body = {"model": "claude-whatever", "max_tokens": 64, "stream": True,
        "messages": [{"role": "user", "content": "say hello"}]}
req = urllib.request.Request(url + "/v1/messages?beta=true", data=json.dumps(body).encode(),
                             headers={"x-api-key": token, "content-type": "application/json",
                                      "anthropic-version": "2023-06-01"})
try:
    with urllib.request.urlopen(req, timeout=30) as r:
        print(r.status, r.headers.get("content-type"))
        print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
"""


def test_container_calls_the_gateway_and_never_sees_the_key(tmp_path: Path) -> None:
    async def main() -> None:
        with ScriptedModelServer(["hello from the model"] * 3) as server:
            async with rig(server, "anthropic-messages", tmp_path) as r:
                provider = DockerProvider(DockerConfig())
                env = await provider.open(
                    EnvSpec(task_id="gw", benchmark=f"test-{SESSION}", image=BASE_IMAGE, labels=dict(TEST_LABELS))
                )
                try:
                    ep = await r.gateway.endpoint(r.session, env)
                    assert not ep.base_url.startswith("http://127.")
                    await env.write_file("/tmp/client.py", CLIENT)
                    res = await env.exec(["python3", "/tmp/client.py", ep.anthropic_base_url, ep.token], timeout=60)
                    assert res.stdout.startswith("200 text/event-stream"), res.output
                    assert "event: message_stop" in res.stdout and "hello from the model" in res.stdout
                    assert server.requests[-1]["body"]["model"] == "served-model"
                    assert r.model.usage.n_calls == 1

                    dump = await env.exec("cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; env", timeout=120)
                    assert dump.exit_code == 0 and "PATH=" in dump.stdout and "sk-real-key" not in dump.output
                    found = await env.exec(
                        "grep -rlF sk-real-key / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev; echo rc=$?",
                        timeout=600,
                    )
                    assert found.stdout.strip().endswith("rc=1"), found.output  # grep: 1 = nothing found

                    bad = await env.exec(["python3", "/tmp/client.py", ep.anthropic_base_url, "acgw-guess"])
                    assert bad.stdout.startswith("401"), bad.output
                    assert json.loads(bad.stdout.split(" ", 1)[1])["error"]["type"] == "authentication_error"

                    r.gateway.close_session(r.session)  # the attempt finished
                    late = await env.exec(["python3", "/tmp/client.py", ep.anthropic_base_url, ep.token])
                    assert late.stdout.startswith("401"), late.output
                    assert r.model.usage.n_calls == 1
                finally:
                    await env.close()
                    await provider.aclose()

    asyncio.run(main())


def test_two_concurrent_docker_attempts_are_each_charged_their_own_calls(tmp_path: Path) -> None:
    """Two attempts in two containers at once, their agents calling the gateway: each attempt's usage is exactly
    what the endpoint counted for its calls (told apart by the instruction they sent), and no byte of the key is
    in the results."""
    from agentcompass import run_evaluation

    seen: dict[str, int] = {}

    def answer(request):
        prompt = request["body"]["messages"][0]["content"]
        n = 100 + len(prompt) % 37
        seen[prompt] = seen.get(prompt, 0) + n
        return {"text": f"tokens {n}", "usage": {"input_tokens": n, "output_tokens": 3}, "delay_s": 1.0}

    key = "sk-DOCKER-two-attempts-4321"
    with ScriptedModelServer(replies=answer) as srv:
        result = run_evaluation(
            benchmark="demo",
            harness="nop",
            environment="docker",
            model="gw-model",
            overrides=["harness._target_=tests.helpers.GatewayEchoHarness"],
            benchmark_params={"sample_ids": ["hello-file", "count-words"]},
            environment_params={"labels": TEST_LABELS},
            model_base_url=srv.base_url,
            model_api_key=key,
            model_api_protocol="openai-chat",
            results_dir=str(tmp_path / "results"),
            task_concurrency=2,
            progress="none",
        )
        peak = srv.max_concurrency
    assert result["metrics"]["n_errors"] == 0 and peak == 2  # the two calls were in flight together
    attempts = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("result.json")]
    charged = sorted(a["usage"]["input"] for a in attempts)
    assert charged == sorted(seen.values()) and len(set(charged)) == 2  # each its own, none swapped or summed
    for a in attempts:
        assert a["agent"]["submission"] == f"tokens {a['usage']['input']}"  # the answer to its own call
    text = "".join(p.read_text(errors="replace") for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert key not in text and "acgw-" not in text
