"""Model-layer throughput: N calls at provider limit L against the scripted server with added latency.

    python bench/models.py [--calls 2000] [--limit 64] [--latency-s 0.02] [--protocol openai-chat]

The server runs in a subprocess (``python -m agentcompass.testing.scripted_server``) so that only the
client's CPU time is measured (``time.process_time`` of this process). Prints calls/s, client CPU ms per
call, the ideal rate (limit / latency) and the ratio, and the server's observed max concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def start_server(latency_s: float, port_file: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentcompass.testing.scripted_server", "--port", "0",
                             "--latency-s", str(latency_s), "--default-reply", "ok",
                             "--port-file", str(port_file)], stdout=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 30
    while not port_file.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit("scripted server did not start")
        time.sleep(0.05)
    return proc


async def run_calls(model, n: int) -> None:
    messages = [{"role": "user", "content": "benchmark call"}]
    results = await asyncio.gather(*(model.complete(messages) for _ in range(n)))
    assert all(r.text == "ok" for r in results)


async def measure(base_url: str, args: argparse.Namespace) -> dict:
    from agentcompass._config.registry import build
    from agentcompass.interfaces import ComponentContext

    model = build("model", {"_target_": "agentcompass.models.client.Model", "id": "bench-model",
                            "base_url": base_url, "api_key": "sk-bench", "api_protocol": args.protocol},
                  ComponentContext(data_dir=Path(tempfile.gettempdir())))
    model.set_concurrency_limit(args.limit)
    await run_calls(model, args.limit * 2)            # warm up: imports, connection pool
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await run_calls(model.fork(), args.calls)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    await model.aclose()
    return {"wall_s": wall, "cpu_s": cpu, "retries": model.total_usage.n_retries}


def cpu_seconds_of(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--limit", type=int, default=64)
    p.add_argument("--latency-s", type=float, default=0.02)
    p.add_argument("--protocol", default="openai-chat",
                   choices=["openai-chat", "openai-responses", "anthropic-messages"])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(args.latency_s, Path(tmp) / "port")
        port = int((Path(tmp) / "port").read_text())
        try:
            res = asyncio.run(measure(f"http://127.0.0.1:{port}/v1", args))
            server_cpu = cpu_seconds_of(proc.pid)
        finally:
            proc.terminate()
            server_out, _ = proc.communicate(timeout=30)
    rate, ideal = args.calls / res["wall_s"], args.limit / args.latency_s
    print(f"protocol            {args.protocol}")
    print(f"calls               {args.calls} at provider limit {args.limit}, +{args.latency_s * 1000:.0f} ms latency")
    print(f"wall                {res['wall_s']:.2f} s")
    print(f"throughput          {rate:,.0f} calls/s (ideal {ideal:,.0f} calls/s, ratio {rate / ideal:.2f})")
    print(f"client CPU          {res['cpu_s'] * 1000 / args.calls:.2f} ms per call ({res['cpu_s']:.2f} s total)")
    print(f"retries             {res['retries']}")
    print(f"server              {server_out.strip().splitlines()[-1]}")
    if server_cpu is not None:
        print(f"server CPU          {server_cpu:.2f} s for the whole run, warm-up included (not counted above)")
    print(f"machine             {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
