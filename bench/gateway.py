"""The model gateway's cost: streamed calls through the gateway beside the same calls straight to the endpoint.

    python bench/gateway.py [--calls 2000] [--concurrency 64] [--protocol anthropic-messages] [--repeats 3]
                            [--words 50]

One scripted server (``python -m agentcompass.testing.scripted_server``, its own process) streams every reply
(``--words`` words of text, one SSE stream per call). This process is the driver: it runs the client (httpx,
``--concurrency`` streamed calls at a time, each read to its last byte) and, on the ``gateway`` side, the gateway
with an attempt's model client fork (forwarding, assembling the stream, counting usage; the call record off, as
for a harness that does not bind an attempt). Sides alternate in each of ``--repeats`` rounds, after a warm-up.

Printed per side: call latency median and p99 (send to last byte), calls/s, and the driver's CPU ms per call
(``time.process_time``); then the gateway's added latency (median, p99), its throughput loss and its CPU per call
(gateway side minus direct side), medians over the rounds with each round's figures beside.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PATHS = {
    "anthropic-messages": "/v1/messages",
    "openai-responses": "/v1/responses",
    "openai-chat": "/v1/chat/completions",
}


def _body(protocol: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "bench", "max_tokens": 256, "stream": True}
    if protocol == "openai-responses":
        return {**body, "input": "go on"}
    return {**body, "messages": [{"role": "user", "content": "go on"}]}


def _server(words: int) -> tuple[subprocess.Popen, str]:
    port_file = Path(tempfile.mkdtemp()) / "port"
    text = " ".join(f"w{i}" for i in range(words))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcompass.testing.scripted_server", "--port", "0", "--port-file", str(port_file)]
        + ["--default-reply", text],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not port_file.exists() or not port_file.read_text().strip():
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the scripted server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{port_file.read_text().strip()}"


async def _calls(client: Any, url: str, headers: dict[str, str], body: dict[str, Any], n: int, limit: int) -> dict:
    sem = asyncio.Semaphore(limit)
    latencies: list[float] = []

    async def one() -> None:
        async with sem:
            t0 = time.perf_counter()
            async with client.stream("POST", url, json=body, headers=headers) as resp:
                async for _ in resp.aiter_raw():
                    pass
                if resp.status_code != 200:
                    raise SystemExit(f"HTTP {resp.status_code} from {url}")
            latencies.append(time.perf_counter() - t0)

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    latencies.sort()
    return {
        "median_ms": statistics.median(latencies) * 1e3,
        "p99_ms": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1e3,
        "calls_s": n / wall,
        "cpu_ms": cpu / n * 1e3,
    }


async def _round(args: argparse.Namespace, base: str, gateway: Any, token: str) -> dict[str, dict]:
    import httpx

    path, body = PATHS[args.protocol], _body(args.protocol)
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    out = {}
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:
        for side in ("direct", "gateway"):
            url = (base if side == "direct" else gateway.base_url) + path
            headers = {"x-api-key": token, "Authorization": f"Bearer {token}"}
            await _calls(client, url, headers, body, 2 * args.concurrency, args.concurrency)  # warm-up
            out[side] = await _calls(client, url, headers, body, args.calls, args.concurrency)
    return out


async def _main(args: argparse.Namespace) -> None:
    from agentcompass.gateway.service import Gateway
    from agentcompass.models.client import Model
    from agentcompass.models.config import ModelConfig

    proc, base = _server(args.words)
    try:
        config = ModelConfig(id="bench", base_url=base + "/v1", api_key="sk-bench", api_protocol=args.protocol)
        root = Model(config)
        root.set_concurrency_limit(args.concurrency)
        gateway = await Gateway().start()
        session = gateway.open_session(root.fork(), "bench")
        rounds = [await _round(args, base, gateway, session.token) for _ in range(args.repeats)]
        await gateway.aclose()
        await root.aclose()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    _report(args, rounds)


def _med(rounds: list[dict], side: str, key: str) -> float:
    return statistics.median(r[side][key] for r in rounds)


def _report(args: argparse.Namespace, rounds: list[dict]) -> None:
    print(f"{args.calls} streamed {args.protocol} calls at concurrency {args.concurrency}, {args.repeats} rounds")
    print(f"{'side':<9}{'median ms':>11}{'p99 ms':>9}{'calls/s':>9}{'CPU ms/call':>13}   rounds (median ms)")
    for side in ("direct", "gateway"):
        each = ", ".join(f"{r[side]['median_ms']:.2f}" for r in rounds)
        print(
            f"{side:<9}{_med(rounds, side, 'median_ms'):>11.2f}{_med(rounds, side, 'p99_ms'):>9.2f}"
            f"{_med(rounds, side, 'calls_s'):>9.0f}{_med(rounds, side, 'cpu_ms'):>13.3f}   {each}"
        )
    added = [r["gateway"]["median_ms"] - r["direct"]["median_ms"] for r in rounds]
    added99 = [r["gateway"]["p99_ms"] - r["direct"]["p99_ms"] for r in rounds]
    loss = [1 - r["gateway"]["calls_s"] / r["direct"]["calls_s"] for r in rounds]
    cpu = [r["gateway"]["cpu_ms"] - r["direct"]["cpu_ms"] for r in rounds]
    print(f"added latency: median {statistics.median(added):.2f} ms, p99 {statistics.median(added99):.2f} ms")
    print(
        f"throughput loss: {statistics.median(loss) * 100:.1f} % (rounds: {', '.join(f'{x * 100:.1f}' for x in loss)})"
    )
    print(f"gateway CPU per call: {statistics.median(cpu):.3f} ms (rounds: {', '.join(f'{x:.3f}' for x in cpu)})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--protocol", default="anthropic-messages", choices=sorted(PATHS))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--words", type=int, default=50, help="words of text in each streamed reply")
    asyncio.run(_main(p.parse_args()))


if __name__ == "__main__":
    main()
