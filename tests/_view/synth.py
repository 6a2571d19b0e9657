"""Generated inputs for the viewer's size and speed checks (tests and ``bench/viewer.py``).

- :func:`big_run`: a real run of ``n`` synthetic tasks (``run_evaluation``, memory environment);
- :func:`msa_trajectory` / :func:`atif_trajectory`: trajectories in mini-swe-agent's and ATIF's shape (as the
  harnesses write them), with ``n_steps`` steps whose observations are ``obs_chars`` of log-like text;
- :func:`dress`: gives every attempt of a run a trajectory, a verifier log and a patch of SWE-bench-like sizes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

WORDS = (
    "test",
    "assert",
    "self",
    "value",
    "result",
    "import",
    "return",
    "def",
    "error",
    "module",
    "path",
    "config",
    "request",
    "None",
    "True",
    "django",
    "models",
    "query",
    "field",
    "line",
    "file",
    "expected",
)


def _lines(rng: random.Random, n: int = 512) -> list[str]:
    return [
        f"{rng.choice(WORDS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 999)}: "
        + " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        + f" {rng.random():.6f}"
        for _ in range(n)
    ]


def text(n_chars: int, rng: random.Random) -> str:
    """Log-like lines (paths, words, numbers) of ``n_chars`` characters, drawn from a per-seed pool."""
    pool = getattr(rng, "_ac_pool", None)
    if pool is None:
        pool = rng._ac_pool = _lines(rng)  # type: ignore[attr-defined]
    out: list[str] = []
    size = 0
    while size < n_chars:
        line = pool[rng.randrange(len(pool))]
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)[:n_chars]


def msa_trajectory(task_id: str, n_steps: int, obs_chars: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": text(1500, rng)},
        {"role": "user", "content": "<task>\n" + text(1200, rng) + "\n</task>"},
    ]
    for i in range(n_steps):
        cmd = f"grep -rn '{rng.choice(WORDS)}' src/ | head -{rng.randint(5, 50)}"
        messages.append(
            {
                "role": "assistant",
                "content": f"THOUGHT: step {i}. {text(200, rng)}\n\n```bash\n{cmd}\n```",
                "extra": {"usage": {"input": 1000 + 50 * i, "output": 80, "cached": 0, "cost_usd": 0.001}},
            }
        )
        messages.append(
            {
                "role": "user",
                "content": f"<returncode>0</returncode>\n<output>\n{text(obs_chars, rng)}\n</output>",
                "extra": {"returncode": 0, "duration_s": 0.05},
            }
        )
    messages.append({"role": "user", "content": "diff --git a/x.py b/x.py\n"})
    return {
        "info": {
            "exit_status": "Submitted",
            "submission": "",
            "model_stats": {"instance_cost": 0.001 * n_steps, "api_calls": n_steps},
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": task_id,
    }


def atif_trajectory(n_steps: int, obs_chars: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "timestamp": "2026-01-01T00:00:00.000Z", "source": "user", "message": text(2000, rng)}
    ]
    for i in range(n_steps):
        steps.append(
            {
                "step_id": i + 2,
                "timestamp": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                "source": "agent",
                "message": json.dumps({"analysis": text(150, rng), "plan": text(80, rng)}),
                "tool_calls": [
                    {
                        "tool_call_id": f"call_{i}",
                        "function_name": "bash_command",
                        "arguments": {"keystrokes": "ls -la\n", "duration": 0.5},
                    }
                ],
                "observation": {"results": [{"content": text(obs_chars, rng)}]},
                "metrics": {"prompt_tokens": 900 + i, "completion_tokens": 60, "cost_usd": 0.0},
            }
        )
    return {"schema_version": "ATIF-v1.2", "agent": {"name": "terminus-2", "version": "1.0.0"}, "steps": steps}


def big_run(results_dir: Path, n_tasks: int) -> Path:
    from agentcompass import run_evaluation

    result = run_evaluation(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        benchmark_params={"n_tasks": n_tasks},
        task_concurrency=32,
        progress="none",
        log_level="WARNING",
        results_dir=str(results_dir),
        run_name=f"synthetic-{n_tasks}",
    )
    return Path(result["paths"]["run_dir"])


def write_json(path: Path, obj: Any) -> int:
    data = json.dumps(obj, indent=2)
    path.write_text(data)
    return len(data)


def dress(
    run_dir: Path, n_steps: int = 30, obs_chars: int = 3000, log_chars: int = 12000, patch_lines: int = 40
) -> None:
    """Every attempt gets ``<task>.traj.json``, ``verifier.log`` and ``patch.diff`` of the given sizes."""
    for i, attempt in enumerate(sorted((run_dir / "tasks").glob("*/sample-*/attempt-*"))):
        rng = random.Random(i)
        task = attempt.parent.name
        write_json(attempt / f"{task}.traj.json", msa_trajectory(task, n_steps, obs_chars, seed=i))
        (attempt / "verifier.log").write_text(text(log_chars, rng))
        body = "\n".join(("+" if k % 3 else "-") + text(60, rng).split("\n")[0] for k in range(patch_lines))
        (attempt / "patch.diff").write_text(
            f"diff --git a/src/{task}.py b/src/{task}.py\n--- a/src/{task}.py\n"
            f"+++ b/src/{task}.py\n@@ -1,{patch_lines} +1,{patch_lines} @@\n{body}\n"
        )
