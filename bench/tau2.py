"""τ²-bench conversations: agentcompass against the reference's own runner (tau2 1.0.1), on one scripted server.

    python bench/tau2.py [--concurrency 8] [--trials 4] [--repeats 3] [--latencies 0,0.5] [--repo CHECKOUT]

The airline test split (20 tasks) with ``--trials`` samples each (80 conversations by default), the scripted model
server (``agentcompass.testing.scripted_server``, real HTTP on 127.0.0.1, in this process) playing both the agent
(model ``agent``) and the simulated user (model ``user``). Its replies are a function of the request alone (the
model name and the last message), so concurrent conversations never mix; each conversation is:

    agent  (the reference's fixed greeting, no model call)
    user   "Hi! My user id is <the id in the task's scenario>. I need help with my reservation."
    agent  get_user_details(user_id=<the id in the user's message>)        (a read tool)
    agent  a text answer
    user   "Thank you, that is all. ###STOP###"

Four model calls a conversation, graded by each side's evaluator (DB and COMMUNICATE on airline). Sides, each a fresh
process, alternated in every round so that the machine's load weighs on both alike:

- ``agentcompass``: ``agentcompass run tau2_airline tool_agent agent -k K --task-concurrency N --env memory
  --benchmark-params '{"dataset_path": <snapshot>, "task_split": "test"}' --model-roles '{"user": {"id": "user"}}'``
  (its results in a temporary directory);
- ``reference``: ``tau2 run --domain airline --task-split-name test --num-trials K --max-concurrency N --agent-llm
  openai/agent --user-llm openai/user`` in the reference venv, litellm pointed at the server by
  ``OPENAI_BASE_URL``; ``TAU2_DATA_DIR`` is a temporary directory whose ``tau2`` links to the snapshot's data, so
  its ``simulations/`` (the runner's results) are written there, not into the snapshot.

Two settings: an instant model, and every model call taking 500 ms (``--latencies``, the server's added latency).
Printed per setting (medians over ``--repeats`` rounds, after one warm-up round of each side): the wall time and the
CPU time (user + sys of the whole process tree, from ``wait4``) of each side, the throughput in conversations per
second and the ratios agentcompass / reference. Each side's conversations are checked (all ended by the user's
stop, the number of conversations, the mean reward) before its figures count. Nothing is asserted: the figures
depend on the machine. ``litellm`` is told to use its bundled model-cost map (``LITELLM_LOCAL_MODEL_COST_MAP``), so
no side waits for the network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REFERENCE = Path.home() / ".cache/agentcompass/reference/tau2"
SNAPSHOT = REFERENCE / "src/tau2-bench-a2c0247"
FALLBACK_USER = "mia_li_3668"  # a user of the airline DB, for a scenario that names none
USER_ID = re.compile(r"user id is ([A-Za-z0-9_]+)")


def reply(request: dict[str, Any]) -> Any:
    """The scripted reply to a request: a function of its model name and its messages only."""
    body = request["body"]
    messages = body.get("messages") or []
    if body.get("model") == "user":  # the user simulator: the agent's messages come as "user" ones
        if len(messages) <= 2:  # its system prompt and the agent's greeting
            found = USER_ID.search(str(messages[0].get("content") if messages else ""))
            uid = found.group(1) if found else FALLBACK_USER
            return f"Hi! My user id is {uid}. I need help with my reservation."
        return "Thank you, that is all. ###STOP###"
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return "I have looked at your profile and your reservations. Is there anything else I can do for you?"
    found = USER_ID.search(str(last.get("content") or ""))
    uid = found.group(1) if found else FALLBACK_USER
    return {"tool_calls": [{"name": "get_user_details", "arguments": {"user_id": uid}}]}


class Runner:
    """Runs one side in a fresh process, measuring its wall and process-tree CPU time."""

    def __init__(self, repo: str, base_url: str, trials: int, concurrency: int, work: Path) -> None:
        self.repo, self.base_url, self.trials, self.concurrency, self.work = repo, base_url, trials, concurrency, work
        self.n = 0
        self.ac_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.ac_env["AGENTCOMPASS_DATA_DIR"] = str(work / "ac-data")
        self.ref_data = work / "tau2-data"
        self.ref_data.mkdir(parents=True)
        (self.ref_data / "tau2").symlink_to(SNAPSHOT / "data" / "tau2")
        self.ref_env = {
            **os.environ,
            "TAU2_DATA_DIR": str(self.ref_data),
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_BASE": base_url,
        }
        for env in (self.ac_env, self.ref_env):
            env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    def run(self, side: str) -> dict[str, Any]:
        self.n += 1
        out = self.work / f"{side}-{self.n}"
        argv = self.ours(out) if side == "agentcompass" else self.reference(out.name)
        env = self.ac_env if side == "agentcompass" else self.ref_env
        before = os.times()
        t0 = time.perf_counter()
        done = subprocess.run(argv, cwd=self.repo, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = os.times()
        if done.returncode:
            raise SystemExit(f"{side} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        check = self.check_ours(out) if side == "agentcompass" else self.check_reference(out.name)
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(self.ref_data / "simulations" / out.name, ignore_errors=True)
        return {"wall_s": wall, "cpu_s": cpu, **check}

    def ours(self, out: Path) -> list[str]:
        params = {"dataset_path": str(SNAPSHOT), "task_split": "test"}
        return [
            sys.executable, "-m", "agentcompass", "run", "tau2_airline", "tool_agent", "agent",
            "-k", str(self.trials), "--task-concurrency", str(self.concurrency), "--env", "memory",
            "--benchmark-params", json.dumps(params), "--model-base-url", self.base_url,
            "--model-api-key", "sk-test", "--model-api-protocol", "openai-chat",
            "--model-roles", json.dumps({"user": {"id": "user"}}),
            "--results-dir", str(out), "--progress", "none", "--log-level", "WARNING",
        ]  # fmt: skip

    def reference(self, name: str) -> list[str]:
        return [
            str(REFERENCE / "bin" / "tau2"), "run", "--domain", "airline", "--task-split-name", "test",
            "--num-trials", str(self.trials), "--max-concurrency", str(self.concurrency),
            "--agent-llm", "openai/agent", "--user-llm", "openai/user", "--save-to", name, "--log-level", "ERROR",
        ]  # fmt: skip

    def check_ours(self, out: Path) -> dict[str, Any]:
        rows = [json.loads(line) for p in out.rglob("results.jsonl") for line in p.read_text().splitlines() if line]
        stops = 0
        for p in out.rglob("result.json"):
            transcript = ((json.loads(p.read_text()).get("agent") or {}).get("transcript")) or {}
            stops += transcript.get("termination") == "user_stop"
        rewards = [float(r.get("reward") or 0.0) for r in rows]
        return {"n": len(rows), "stops": stops, "reward": statistics.fmean(rewards) if rewards else float("nan")}

    def check_reference(self, name: str) -> dict[str, Any]:
        data = json.loads((self.ref_data / "simulations" / name / "results.json").read_text())
        sims = data["simulations"]
        rewards = [float((s.get("reward_info") or {}).get("reward") or 0.0) for s in sims]
        stops = sum(s.get("termination_reason") == "user_stop" for s in sims)
        return {"n": len(sims), "stops": stops, "reward": statistics.fmean(rewards) if rewards else float("nan")}


def med(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def setting(runner: Runner, repeats: int, expected: int) -> dict[str, list[dict[str, Any]]]:
    """``repeats`` rounds, the sides alternating which goes first."""
    rows: dict[str, list[dict[str, Any]]] = {"agentcompass": [], "reference": []}
    for r in range(repeats):
        order = ("agentcompass", "reference") if r % 2 == 0 else ("reference", "agentcompass")
        for side in order:
            row = runner.run(side)
            rows[side].append(row)
            flag = "" if row["n"] == expected and row["stops"] == expected else "  <- NOT ALL CONVERSATIONS RAN"
            print(
                f"  round {r + 1} {side:<12} wall {row['wall_s']:6.2f} s  cpu {row['cpu_s']:6.2f} s  "
                f"{row['n']} conversations, {row['stops']} user stops, mean reward {row['reward']:.3f}{flag}",
                flush=True,
            )
    return rows


def report(rows: dict[str, list[dict[str, Any]]], expected: int, latency: float) -> None:
    ours, ref = rows["agentcompass"], rows["reference"]
    print(f"latency {latency * 1000:.0f} ms per model call, medians of {len(ours)} rounds:")
    for side, rs in (("agentcompass", ours), ("reference", ref)):
        wall, cpu = med(rs, "wall_s"), med(rs, "cpu_s")
        print(f"  {side:<12} wall {wall:6.2f} s  cpu {cpu:6.2f} s  {expected / wall:6.2f} conversations/s")
    wall_ratio = med(ref, "wall_s") / med(ours, "wall_s")
    cpu_ratio = med(ours, "cpu_s") / med(ref, "cpu_s")
    print(f"  agentcompass / reference: throughput {wall_ratio:.2f}x, CPU {cpu_ratio:.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--concurrency", type=int, default=8, help="conversations at once, on both sides")
    ap.add_argument("--trials", type=int, default=4, help="samples per task (-k / --num-trials)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--latencies", default="0,0.5", help="seconds added to every model call, one setting each")
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose agentcompass runs (default: this one)")
    a = ap.parse_args()
    if not (REFERENCE / ".agentcompass-ready").exists():
        raise SystemExit(f"no reference venv at {REFERENCE}: run `bash scripts/ensure_reference.sh tau2`")
    sys.path.insert(0, a.repo)
    from agentcompass.testing.scripted_server import ScriptedModelServer

    splits = json.loads((SNAPSHOT / "data/tau2/domains/airline/split_tasks.json").read_text())
    expected = len(splits["test"]) * a.trials
    print(f"agentcompass from {a.repo}; {expected} conversations a run, concurrency {a.concurrency}")
    print(f"load average at the start {os.getloadavg()[0]:.2f}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="ac-bench-tau2-"))
    try:
        for i, latency in enumerate(float(x) for x in a.latencies.split(",")):
            with ScriptedModelServer(replies=reply, latency_s=latency, record=False) as srv:
                runner = Runner(a.repo, srv.base_url, a.trials, a.concurrency, work / f"s{i}")
                if i == 0:
                    print("warm-up (not counted):", flush=True)
                    setting(runner, 1, expected)
                print(f"setting: {latency * 1000:.0f} ms per model call", flush=True)
                report(setting(runner, a.repeats, expected), expected, latency)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
