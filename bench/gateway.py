"""The model gateway's cost: streamed calls through the gateway beside the same calls straight to the endpoint.

    python bench/gateway.py [--calls 2000] [--concurrency 64] [--protocol anthropic-messages] [--repeats 3]
                            [--words 50] [--no-record] [--latency-ms 0]

Three processes. The endpoint: the scripted server (``python -m agentcompass.testing.scripted_server``) streaming
every reply (``--words`` words of text, one SSE stream per call) after ``--latency-ms`` (0: none, so the machine's
CPU is the limit). The driver (this process): the gateway with an attempt's model client fork, as in a run
(forwarding, usage, and the call record in a temporary ``model_calls.jsonl`` unless ``--no-record``). The agents:
a load process (aiohttp) making ``--calls`` streamed calls, ``--concurrency`` at a time, each read to its last
byte, after a warm-up; it measures each call's latency
(send to last byte) and its own CPU. Sides alternate in each of ``--repeats`` rounds: ``direct`` (the load process
calls the endpoint; the driver idles) and ``gateway`` (it calls the gateway, which calls the endpoint).

Printed per side and round: latency median and p99, calls/s, the driver's CPU ms per call (``time.process_time``
of this process while the measured calls ran), the time its event loop spent ready but waiting for a CPU per call
(Linux schedstat: what the machine's other load costs it), the load process's CPU, and the load average; then the
gateway's added latency (median, p99), throughput loss and driver CPU per call, medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
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


def _server(words: int, latency_ms: float) -> tuple[subprocess.Popen, str]:
    folder = Path(tempfile.mkdtemp(prefix="bench-gateway-port-"))
    port_file = folder / "port"
    text = " ".join(f"w{i}" for i in range(words))
    latency = ["--latency-s", str(latency_ms / 1000)] if latency_ms else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcompass.testing.scripted_server", "--port", "0", "--port-file", str(port_file)]
        + ["--default-reply", text, *latency],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    try:
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("the scripted server did not start")
            time.sleep(0.1)
        return proc, f"http://127.0.0.1:{port_file.read_text().strip()}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------ the load process
async def _load(url: str, token: str, body: dict[str, Any], n: int, limit: int) -> None:
    """``n`` streamed calls, ``limit`` at a time, after a warm-up; prints ``warm`` then one JSON line."""
    import aiohttp

    headers = {"x-api-key": token, "Authorization": f"Bearer {token}", "content-type": "application/json"}
    data = json.dumps(body).encode()
    latencies: list[float] = []
    connector = aiohttp.TCPConnector(limit=limit)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as session:
        sem = asyncio.Semaphore(limit)

        async def one(keep: bool) -> None:
            async with sem:
                t0 = time.perf_counter()
                async with session.post(url, data=data, headers=headers) as resp:
                    async for _ in resp.content.iter_any():
                        pass
                    if resp.status != 200:
                        raise SystemExit(f"HTTP {resp.status} from {url}")
                if keep:
                    latencies.append(time.perf_counter() - t0)

        await asyncio.gather(*(one(False) for _ in range(2 * limit)))
        print("warm", flush=True)
        sys.stdin.readline()  # the driver has read its CPU clock
        cpu0, t0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(True) for _ in range(n)))
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    latencies.sort()
    result = {
        "median_ms": statistics.median(latencies) * 1e3,
        "p99_ms": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1e3,
        "calls_s": n / wall,
        "client_cpu_ms": cpu / n * 1e3,
    }
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------------------------------------ the driver
def _run_queue_wait() -> float:
    """Seconds the event loop's thread has spent ready to run but waiting for a CPU (Linux schedstat; 0 when
    unavailable): what other processes' load costs the gateway."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def _side(args: argparse.Namespace, url: str, token: str) -> dict[str, Any]:
    """One side of a round: the load process against ``url``, this process's CPU while it measured."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--load",
        url,
        token,
        json.dumps(_body(args.protocol)),
        str(args.calls),
        str(args.concurrency),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stdin is not None
    if (await proc.stdout.readline()).strip() != b"warm":
        raise SystemExit("the load process failed to warm up")
    load0, cpu0, wait0 = os.getloadavg()[0], time.process_time(), _run_queue_wait()
    proc.stdin.write(b"go\n")
    await proc.stdin.drain()
    line = await proc.stdout.readline()
    cpu, wait = time.process_time() - cpu0, _run_queue_wait() - wait0
    await proc.wait()
    if proc.returncode != 0 or not line.strip():
        raise SystemExit(f"the load process failed (exit {proc.returncode})")
    out = json.loads(line)
    out["driver_cpu_ms"] = cpu / args.calls * 1e3
    out["driver_wait_ms"] = wait / args.calls * 1e3
    out["load"] = (load0 + os.getloadavg()[0]) / 2
    return out


async def _main(args: argparse.Namespace) -> None:
    from agentcompass.gateway.service import Gateway
    from agentcompass.models.client import Model
    from agentcompass.models.config import ModelConfig

    proc, base = _server(args.words, args.latency_ms)
    record = None if args.no_record else Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    try:
        config = ModelConfig(id="bench", base_url=base + "/v1", api_key="sk-bench", api_protocol=args.protocol)
        root = Model(config)
        root.set_concurrency_limit(args.concurrency)
        fork = root.fork(_Attempt(record) if record is not None else None)
        gateway = await Gateway().start()
        session = gateway.open_session(fork, "bench")
        path = PATHS[args.protocol]
        rounds = []
        for _ in range(args.repeats):
            direct = await _side(args, base + path, session.token)
            through = await _side(args, gateway.base_url + path, session.token)
            rounds.append({"direct": direct, "gateway": through})
        await gateway.aclose()
        await root.aclose()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if record is not None:  # the call record's cost is measured; the record itself is not kept
            shutil.rmtree(record, ignore_errors=True)
    _report(args, rounds, record)


class _Attempt:
    def __init__(self, attempt_dir: Path) -> None:
        self.attempt_dir = attempt_dir


def _med(values: list[float]) -> float:
    return statistics.median(values)


def _report(args: argparse.Namespace, rounds: list[dict], record: Path | None) -> None:
    what = f"call record {'on' if record is not None else 'off'}, endpoint latency {args.latency_ms:g} ms"
    print(
        f"{args.calls} streamed {args.protocol} calls at concurrency {args.concurrency}, {args.repeats} rounds, {what}"
    )
    head = f"{'round':<6}{'side':<9}{'median ms':>11}{'p99 ms':>10}{'calls/s':>9}"
    print(head + f"{'driver CPU ms':>15}{'driver wait ms':>16}{'load CPU ms':>13}{'load avg':>10}")
    for i, r in enumerate(rounds, 1):
        for side in ("direct", "gateway"):
            s = r[side]
            print(
                f"{i:<6}{side:<9}{s['median_ms']:>11.2f}{s['p99_ms']:>10.2f}{s['calls_s']:>9.0f}"
                f"{s['driver_cpu_ms']:>15.3f}{s['driver_wait_ms']:>16.3f}{s['client_cpu_ms']:>13.3f}{s['load']:>10.1f}"
            )
    added = [r["gateway"]["median_ms"] - r["direct"]["median_ms"] for r in rounds]
    added99 = [r["gateway"]["p99_ms"] - r["direct"]["p99_ms"] for r in rounds]
    loss = [1 - r["gateway"]["calls_s"] / r["direct"]["calls_s"] for r in rounds]
    cpu = [r["gateway"]["driver_cpu_ms"] - r["direct"]["driver_cpu_ms"] for r in rounds]
    print(f"added latency: median {_med(added):.2f} ms, p99 {_med(added99):.2f} ms (medians over rounds)")
    print(f"throughput loss: {_med(loss) * 100:.1f} % (rounds: {', '.join(f'{x * 100:.1f}' for x in loss)})")
    print(f"gateway CPU per call (driver): {_med(cpu):.3f} ms (rounds: {', '.join(f'{x:.3f}' for x in cpu)})")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        url, token, body, n, limit = sys.argv[2:7]
        asyncio.run(_load(url, token, json.loads(body), int(n), int(limit)))
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--protocol", default="anthropic-messages", choices=sorted(PATHS))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--words", type=int, default=50, help="words of text in each streamed reply")
    p.add_argument("--no-record", action="store_true", help="no model_calls.jsonl (the call record off)")
    p.add_argument(
        "--latency-ms", type=float, default=0.0, help="the endpoint's latency before each reply (0: none, CPU-bound)"
    )
    asyncio.run(_main(p.parse_args()))


if __name__ == "__main__":
    main()
