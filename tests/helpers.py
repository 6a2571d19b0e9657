"""Harnesses used by the core tests: instrumented, and failing on purpose."""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import AgentError, SandboxError
from agentcompass.interfaces import AgentResult


class ProbeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = 0.0
    fail_times: int = 0  # the first N attempts of every task fail
    error: str = "agent"  # agent | sandbox (typed retryable)
    message: str = "flaky failure"
    solve: bool = True  # submit the reference solution's submission


class ProbeHarness:
    """Counts concurrent runs across all attempts; fails the first ``fail_times`` attempts of each task."""

    requires_model: ClassVar[bool] = False
    config_class = ProbeConfig
    instances: ClassVar[list[ProbeHarness]] = []
    global_running: ClassVar[int] = 0  # across every instance (all requests of an orchestration)
    global_max: ClassVar[int] = 0

    def __init__(self, config: ProbeConfig, ctx) -> None:
        self.config = config
        self.running = 0
        self.max_running = 0
        self.calls: dict[str, int] = {}
        ProbeHarness.instances.append(self)

    async def run(self, task, env, model, ctx) -> AgentResult:
        self.calls[task.id] = self.calls.get(task.id, 0) + 1
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        ProbeHarness.global_running += 1
        ProbeHarness.global_max = max(ProbeHarness.global_max, ProbeHarness.global_running)
        try:
            await asyncio.sleep(self.config.sleep_s)
            forced = task.id in os.environ.get("PROBE_FAIL_TASKS", "").split(",")
            if forced or self.calls[task.id] <= self.config.fail_times:
                cls = SandboxError if self.config.error == "sandbox" else AgentError
                raise cls(f"{self.config.message} (call {self.calls[task.id]})")
        finally:
            self.running -= 1
            ProbeHarness.global_running -= 1
        submission = ctx.benchmark.reference_solution(task).submission if self.config.solve else ""
        if self.config.solve and submission is None:  # a command-style solution (Terminal-Bench format)
            from agentcompass.harnesses.oracle import OracleConfig, OracleHarness

            return await OracleHarness(OracleConfig(), None).run(task, env, model, ctx)
        return AgentResult(submission=submission, n_turns=1)


class KeyboardCrashHarness(ProbeHarness):
    """Sleeps forever (used with timeouts)."""

    async def run(self, task, env, model, ctx) -> AgentResult:
        if task.id.endswith(("-0", "-1")):
            return await super().run(task, env, model, ctx)
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


class EchoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turns: int = 1  # calls made, each a user turn after the previous reply
    sleep_s: float = 0.0  # after the calls


class ModelEchoHarness:
    """Asks the model with the task's instruction (``turns`` times, the conversation growing) and submits its last
    reply (model-layer run tests)."""

    requires_model: ClassVar[bool] = True
    config_class = EchoConfig

    def __init__(self, config: EchoConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        messages = [{"role": "system", "content": "Answer exactly."}, {"role": "user", "content": task.instruction}]
        for turn in range(self.config.turns):
            reply = await model.complete(messages)
            messages += [{"role": "assistant", "content": reply.text}, {"role": "user", "content": f"again {turn}"}]
        await asyncio.sleep(self.config.sleep_s)
        return AgentResult(submission=reply.text.strip(), n_turns=self.config.turns, usage=model.usage)


class NoisyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = 0.05


class NoisyHarness:
    """Logs a WARNING in every attempt (console logging while the progress bar is drawn), then submits the
    reference answer."""

    requires_model: ClassVar[bool] = False
    config_class = NoisyConfig

    def __init__(self, config: NoisyConfig, ctx=None) -> None:
        self.config = config

    async def run(self, task, env, model, ctx):
        import logging

        await asyncio.sleep(self.config.sleep_s)
        logging.getLogger("agentcompass.noisy").warning("noisy warning from %s", task.id)
        await asyncio.sleep(self.config.sleep_s)
        return AgentResult(submission=ctx.benchmark.reference_solution(task).submission, n_turns=1)


# a streamed chat completion from inside an environment, as an agent CLI makes it (stdlib only)
GATEWAY_CLIENT = r"""
import json, sys, urllib.request
url, token, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
body = {"model": "whatever-the-agent-wants", "stream": True, "messages": [{"role": "user", "content": prompt}]}
req = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                             headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
text = ""
with urllib.request.urlopen(req, timeout=120) as r:
    for line in r:
        line = line.decode().strip()
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                text += choice["delta"].get("content") or ""
print(text)
"""


class GatewayEchoHarness:
    """Runs a stdlib HTTP client in the environment that asks the model gateway (streamed chat) and submits the
    reply: an agent that calls the model API itself."""

    requires_model: ClassVar[bool] = True
    config_class = EchoConfig

    def __init__(self, config: EchoConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        ep = await ctx.gateway(env)
        if os.environ.get("AGENTCOMPASS_TEST_GATEWAY_FILE"):  # where a test process finds the gateway
            with open(os.environ["AGENTCOMPASS_TEST_GATEWAY_FILE"], "a") as f:
                f.write(ep.base_url + "\n")
        await env.write_file("gateway_client.py", GATEWAY_CLIENT)
        res = await env.exec(["python3", "gateway_client.py", ep.openai_base_url, ep.token, task.instruction])
        if res.exit_code != 0:
            raise RuntimeError(f"gateway client failed: {res.output[-2000:]}")
        info = {"base": ep.base_url, "pid": os.getpid()}  # pid: the process whose gateway served it
        return AgentResult(submission=res.stdout.strip(), n_turns=1, usage=model.usage, info=info)


class LoopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n_calls: int = 3
    way: str = "gateway"  # gateway: HTTP calls from this host through ctx.gateway; complete: model.complete


class LoopHarness:
    """Asks the model ``n_calls`` times (through the gateway as an agent CLI would, stopping at the first API
    error, or with ``complete``) and submits the last reply; ``info`` holds the statuses the agent saw."""

    requires_model: ClassVar[bool] = True
    config_class = LoopConfig

    def __init__(self, config: LoopConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        text, seen = "", []
        messages = [{"role": "user", "content": task.instruction}]
        if self.config.way == "complete":
            for _ in range(self.config.n_calls):
                text = (await model.complete(messages)).text
            return AgentResult(submission=text.strip(), n_turns=self.config.n_calls, usage=model.usage)
        import httpx

        ep = await ctx.gateway(None)
        async with httpx.AsyncClient(timeout=120) as client:
            for _ in range(self.config.n_calls):
                resp = await client.post(
                    ep.openai_base_url + "/chat/completions",
                    json={"model": "any", "messages": messages},
                    headers={"Authorization": f"Bearer {ep.token}"},
                )
                seen.append(resp.status_code)
                if resp.status_code != 200:
                    seen.append(resp.json()["error"]["message"])
                    break
                text = resp.json()["choices"][0]["message"]["content"]
        return AgentResult(submission=text.strip(), n_turns=len(seen), usage=model.usage, info={"seen": seen})
