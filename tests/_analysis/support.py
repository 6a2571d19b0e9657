"""Helpers of the analysis tests: a finished run with mixed outcomes (mixed.py) and a scripted judge."""

from __future__ import annotations

import json

from agentcompass import run_evaluation
from tests._analysis import mixed

MIXED_OVERRIDES = [
    "harness._target_=tests._analysis.mixed.MixedHarness",
    "benchmark._target_=tests._analysis.mixed.MixedBenchmark",
    "+harness.sleep_s=5",
]
JUDGE_CATEGORIES = {
    "syn-1": "wrong_solution",
    "syn-2": "infra_failure",
    "syn-3": "banana",
    "syn-4": "timeout_or_limit",
    "syn-5": "timeout_or_limit",
    "syn-7": "verifier_problem",
    "syn-8": "model_api_failure",
}
JUDGE_KEY = "judge-key-0123456789abcdef"


def run_mixed(results_dir, **kw):
    mixed.CALLS.clear()
    base = dict(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        results_dir=str(results_dir),
        progress="none",
        benchmark_params={"n_tasks": 10},
        task_concurrency=10,
        max_retries=1,
        execution_params={"timeouts": {"agent": 0.5}},
        overrides=MIXED_OVERRIDES,
    )
    base.update(kw)
    return run_evaluation(**base)


def judge_reply(request):
    """The scripted judge: answers by the task id found in the evidence it was sent."""
    content = request["body"]["messages"][-1]["content"]
    task = json.loads(content.split("Recorded facts:\n", 1)[1].split("\n}", 1)[0] + "\n}")["task_id"]
    category = JUDGE_CATEGORIES[task]
    text = f'Here you go: {{"category": "{category}", "reason": "because {task} failed\\nthat way"}}'
    return {"text": text, "usage": {"input_tokens": 1000, "output_tokens": 50}}


def judge_model(srv):
    return {
        "id": "judge-model",
        "base_url": srv.base_url,
        "api_key": JUDGE_KEY,
        "api_protocol": "openai-chat",
        "prices": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0},
        "max_retries": 0,
    }
