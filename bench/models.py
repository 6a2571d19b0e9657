"""Model-layer throughput beside peer clients: the same calls against the same scripted server in one run.

    python bench/models.py [--calls 1000] [--limit 64] [--latency-s 0.02] [--history 0,30] [--repeats 3]
                           [--protocol openai-chat] [--peers inspect-ai,openai]

One scripted server (``python -m agentcompass.testing.scripted_server``, ``--latency-s`` added to every
request) serves every side; each side runs in its own process, so its CPU time (``time.process_time``) is
the client's alone. ``--calls`` calls at most ``--limit`` at a time, after a warm-up of ``2 x limit`` calls;
each call sends a system and a user message plus ``--history`` earlier turns of about 2 KB each (0: the
short call; 30: a long agent conversation). Sides, alternated in each of ``--repeats`` rounds:

- ``agentcompass``: ``Model.complete`` of ``agentcompass.models`` (provider limit ``--limit``).
- ``inspect-ai``: Inspect AI's model layer, ``get_model("openai/...").generate(...)`` with
  ``GenerateConfig(max_connections=limit)`` (its defaults otherwise). It runs in its own virtual environment,
  ``~/.cache/agentcompass/bench/inspect-ai``, with the same ``openai`` release as ours; the bench creates it on
  first use (``pip install inspect-ai==INSPECT_VERSION openai==<ours>``); it is never a dependency of the
  project. ``--peer-python`` points at another interpreter holding ``inspect_ai``.
- ``openai``: the plain ``openai`` SDK with its defaults (one ``AsyncOpenAI``, ``chat.completions.create``),
  an ``asyncio.Semaphore(limit)`` around each call.

Printed per workload and side: calls/s and client CPU ms per call (medians of the rounds, each round's
figures beside), and the ratio of ours to each peer. openai-chat is the protocol every side speaks here;
``--protocol`` changes ours only (the peers are then not run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSPECT_VERSION = "0.3.285"
PEER_VENV = Path.home() / ".cache" / "agentcompass" / "bench" / "inspect-ai"

CHILD = r"""
import asyncio, json, sys, time
cfg = json.loads(sys.argv[1])
N, LIMIT, SIDE = cfg["calls"], cfg["limit"], cfg["side"]
DICTS = [{"role": "system", "content": "You are a benchmark."}]
DICTS += [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "x" * 2000}
          for i in range(cfg["history"])]
DICTS += [{"role": "user", "content": "benchmark call"}]


def agentcompass_side():
    from pathlib import Path
    from agentcompass._config import build
    from agentcompass.interfaces import ComponentContext
    model = build("model", {"_target_": "agentcompass.models.client.Model", "id": "bench-model",
                            "base_url": cfg["base_url"], "api_key": "sk-bench", "api_protocol": cfg["protocol"]},
                  ComponentContext(data_dir=Path(cfg["tmp"])))
    model.set_concurrency_limit(LIMIT)
    async def call():
        return (await model.complete(DICTS)).text
    return call, model.aclose


def openai_side():
    from openai import AsyncOpenAI
    client = AsyncOpenAI(api_key="sk-bench", base_url=cfg["base_url"])
    sem = asyncio.Semaphore(LIMIT)
    async def call():
        async with sem:
            completion = await client.chat.completions.create(model="bench-model", messages=DICTS)
        return completion.choices[0].message.content
    return call, client.close


def inspect_side():
    from inspect_ai.model import (ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig,
                                  get_model)
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    messages = [kinds[m["role"]](content=m["content"]) for m in DICTS]
    model = get_model("openai/bench-model", base_url=cfg["base_url"], api_key="sk-bench",
                      config=GenerateConfig(max_connections=LIMIT))
    async def call():
        return (await model.generate(messages)).completion
    async def close():
        pass
    return call, close


async def main():
    call, close = {"agentcompass": agentcompass_side, "openai": openai_side, "inspect-ai": inspect_side}[SIDE]()
    warm = await asyncio.gather(*(call() for _ in range(2 * LIMIT)))
    c0, w0 = time.process_time(), time.perf_counter()
    out = await asyncio.gather(*(call() for _ in range(N)))
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    await close()
    bad = [r for r in warm + out if r != "ok"]
    if bad:
        raise SystemExit(f"{SIDE}: {len(bad)} replies were not 'ok', e.g. {bad[0]!r}")
    print(json.dumps({"cpu_ms": cpu * 1000 / N, "rate": N / wall}))

asyncio.run(main())
"""


def start_server(latency_s: float, port_file: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcompass.testing.scripted_server",
            "--port",
            "0",
            "--latency-s",
            str(latency_s),
            "--default-reply",
            "ok",
            "--port-file",
            str(port_file),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 30
    while not port_file.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit("scripted server did not start")
        time.sleep(0.05)
    return proc


def peer_python(given: str | None) -> Path:
    """The interpreter holding inspect_ai: ``given``, else the bench's own venv (created on first use)."""
    if given:
        return Path(given)
    py = PEER_VENV / "bin" / "python"
    marker = PEER_VENV / ".bench-ready"
    import openai

    want = f"inspect-ai=={INSPECT_VERSION} openai=={openai.__version__}"
    if not (marker.is_file() and marker.read_text() == want):
        print(f"creating {PEER_VENV} ({want}) ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(PEER_VENV)], check=True)
        subprocess.run(
            [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *want.split()], check=True
        )
        marker.write_text(want)
    return py


def run_side(side: str, python: Path, cfg: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) if side == "agentcompass" else "", "INSPECT_LOG_LEVEL": "warning"}
    proc = subprocess.run(
        [str(python), "-c", CHILD, json.dumps({**cfg, "side": side})],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(f"side {side} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(history: int, results: dict[str, list[dict]]) -> None:
    print(f"\nhistory {history} turns ({'short call' if not history else f'about {2 * history} KB per request'})")
    print(f"  {'side':<14}{'calls/s':>9}{'CPU ms/call':>13}   rounds (calls/s | CPU ms)")
    med = {}
    for side, runs in results.items():
        med[side] = (statistics.median(r["rate"] for r in runs), statistics.median(r["cpu_ms"] for r in runs))
        rounds = "  ".join(f"{r['rate']:.0f}|{r['cpu_ms']:.2f}" for r in runs)
        print(f"  {side:<14}{med[side][0]:9.0f}{med[side][1]:13.2f}   {rounds}")
    ours = med["agentcompass"]
    for side in med:
        if side != "agentcompass":
            print(
                f"  ours vs {side}: {ours[0] / med[side][0]:.2f}x the calls/s, "
                f"{ours[1] / med[side][1]:.2f}x the CPU per call"
            )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--limit", type=int, default=64)
    p.add_argument("--latency-s", type=float, default=0.02)
    p.add_argument("--history", default="0,30", help="comma-separated numbers of earlier turns per request")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument(
        "--protocol", default="openai-chat", choices=["openai-chat", "openai-responses", "anthropic-messages"]
    )
    p.add_argument("--peers", default="inspect-ai,openai", help="comma-separated: inspect-ai, openai ('' for none)")
    p.add_argument("--peer-python", help="an interpreter with inspect_ai installed (default: the bench's venv)")
    args = p.parse_args()
    peers = [s for s in args.peers.split(",") if s] if args.protocol == "openai-chat" else []
    pythons = {"agentcompass": Path(sys.executable), "openai": Path(sys.executable)}
    if "inspect-ai" in peers:
        pythons["inspect-ai"] = peer_python(args.peer_python)
    sides = ["agentcompass", *peers]
    print(
        f"{args.calls} calls per round at limit {args.limit}, +{args.latency_s * 1000:.0f} ms latency per request, "
        f"protocol {args.protocol}, {args.repeats} rounds, sides {', '.join(sides)}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(args.latency_s, Path(tmp) / "port")
        base_url = f"http://127.0.0.1:{int((Path(tmp) / 'port').read_text())}/v1"
        try:
            for history in (int(h) for h in args.history.split(",")):
                cfg = {
                    "base_url": base_url,
                    "calls": args.calls,
                    "limit": args.limit,
                    "history": history,
                    "protocol": args.protocol,
                    "tmp": tmp,
                }
                results: dict[str, list[dict]] = {s: [] for s in sides}
                for i in range(args.repeats):
                    for side in sides[i % len(sides) :] + sides[: i % len(sides)]:
                        results[side].append(run_side(side, pythons[side], cfg))
                report(history, results)
        finally:
            proc.terminate()
            server_out, _ = proc.communicate(timeout=30)
    print(f"\nserver: {server_out.strip().splitlines()[-1]}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
