"""What delivering an agent's build costs per attempt, once it is cached: the read-only mount of the agents cache.

    python bench/agents.py [--rounds 15] [--harness claude_code]

Sides, alternated in each round (docker, the offline base image):

- ``baseline``: open a container of the task image (the docker provider), run ``true`` in it, close it;
- ``delivered``: the same with the harness's ``env_mounts`` (the cache directory holding the build, e.g. Claude
  Code's ~400 MB native binary), the platform probe (read once per image, then remembered) and ``test -x
  <agent binary>`` instead of ``true`` (the binary is there, as the agent's command will find it).

Before the rounds, ``<agent> --version`` runs once in a delivered container (the build really starts there).

Printed: the median of each side, and the difference (the per-attempt cost of delivery; aim < 50 ms), and the
median of the per-round differences (each round runs the two sides back to back). The build
is fetched first when missing (into ``--data-dir``, default the usual data dir). Needs scripts/ensure_docker.sh.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

# bench/docker.py sits beside this file: keep its folder off sys.path so `import docker` finds the Docker SDK
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from agentcompass.environments.docker import DockerConfig, DockerProvider  # noqa: E402
from agentcompass.harnesses._installed import __main__ as fetch_cli  # noqa: E402
from agentcompass.harnesses._installed import delivery  # noqa: E402
from agentcompass.harnesses._installed.platform import probe  # noqa: E402
from agentcompass.interfaces import ComponentContext, EnvSpec, Task  # noqa: E402
from agentcompass.kit import default_data_dir  # noqa: E402

IMAGE = "agentcompass/base:bookworm"
LABELS = {"agentcompass.bench": "agents"}
BINARY = {
    "claude_code": "claude",
    "codex": "vendor/x86_64-unknown-linux-musl/bin/codex",
    "opencode": "bin/opencode",
    "qwen_code": "cli-entry.js",
}


async def _one(provider: DockerProvider, spec: EnvSpec, command: list[str]) -> float:
    start = time.perf_counter()
    env = await provider.open(spec)
    try:
        result = await env.exec(command)
        if result.exit_code != 0:
            raise SystemExit(f"{command} failed: {result.output}")
    finally:
        await env.close()
    return time.perf_counter() - start


async def main(args: argparse.Namespace) -> None:
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    module, _, name = fetch_cli.HARNESSES[args.harness].partition(":")
    cls = getattr(__import__(module, fromlist=[name]), name)
    harness = cls(cls.config_class(), ComponentContext(data_dir=data_dir, auto_install_dependencies=True))
    provider = DockerProvider(DockerConfig(), ComponentContext(data_dir=data_dir))
    task = Task(id="bench-agents", instruction="", image=IMAGE)
    base = EnvSpec(task_id=task.id, image=IMAGE, labels=dict(LABELS))
    mounted = EnvSpec(task_id=task.id, image=IMAGE, labels=dict(LABELS), mounts=harness.env_mounts(task))
    env = await provider.open(mounted)
    plat = await probe(env)
    await env.close()
    part = harness.parts(plat)[0]
    delivery.ensure_sync(part, data_dir, auto_install=True, harness=args.harness, platform=plat.npm)
    binary = f"{part.env_dir()}/{BINARY[args.harness]}"
    print(f"{args.harness}: {part.label} for {plat.npm}, mounted from {part.host_dir(data_dir)}")
    if args.harness != "qwen_code":
        env = await provider.open(mounted)
        try:
            print("  --version in the container:", (await env.exec([binary, "--version"])).output.strip())
        finally:
            await env.close()
    sides: dict[str, list[float]] = {"baseline": [], "delivered": []}
    try:
        await _one(provider, base, ["true"])  # warm-up
        for _ in range(args.rounds):
            sides["baseline"].append(await _one(provider, base, ["true"]))
            start = time.perf_counter()
            env = await provider.open(mounted)
            try:
                await probe(env)  # remembered per image: no exec after the first
                result = await env.exec(["test", "-x", binary])
                if result.exit_code != 0:
                    raise SystemExit(f"{binary} failed: {result.output}")
            finally:
                await env.close()
            sides["delivered"].append(time.perf_counter() - start)
    finally:
        await provider.aclose()
    base_ms, deliv_ms = (statistics.median(v) * 1000 for v in sides.values())
    print(f"baseline  (open, exec true, close):              median {base_ms:7.1f} ms over {args.rounds}")
    print(f"delivered (mount, probe, exec test -x <agent>):   median {deliv_ms:7.1f} ms over {args.rounds}")
    paired = statistics.median(d - b for b, d in zip(sides["baseline"], sides["delivered"], strict=True)) * 1000
    print(f"per-attempt delivery cost: {deliv_ms - base_ms:+.1f} ms (ratio {deliv_ms / base_ms:.2f}x; aim < 50 ms)")
    print(f"median of the per-round differences: {paired:+.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--harness", default="claude_code", choices=sorted(fetch_cli.HARNESSES))
    parser.add_argument("--data-dir", default=None)
    asyncio.run(main(parser.parse_args()))
