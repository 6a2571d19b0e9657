"""``agentcompass analyze RUN_DIR``: write analysis.json / analysis.md for an existing run directory."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to analyse (holding run.json)")
    p.add_argument(
        "--analysis-params",
        type=options.json_object(),
        default=None,
        metavar="JSON",
        help="analysis settings as a JSON object (as `run --analysis-params`); a judge runs only when it names a "
        "model (analysis_params.model)",
    )
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    """The judge runs only when --analysis-params names a model."""
    from agentcompass import _sdk

    analysis, paths = _sdk.analyze(args.run_dir, args.analysis_params, log_level=args.log_level)
    b = analysis["breakdown"]
    print(", ".join(f"{k}={v}" for k, v in b["outcomes"].items() if v) or "no tasks")
    fig = analysis.get("figures") or {}
    ci = fig.get("mean_reward_ci") or {}
    if ci.get("low") is not None:
        print(f"mean_reward={fig['mean_reward']:.4f} 95% [{ci['low']:.4f}, {ci['high']:.4f}] ({ci['method']})")
    spread = analysis.get("task_spread")
    if spread:
        c = spread["counts"]
        print(f"tasks: {c['always']} always pass, {c['never']} never, {c['sometimes']} sometimes (coin flips)")
    if analysis.get("judge"):
        j = analysis["judge"]
        print(
            f"judge: {j['n_judged']} labelled, cost_usd="
            f"{'unknown' if j['cost_usd'] is None else format(j['cost_usd'], '.6f')}: "
            + ", ".join(f"{k}={v}" for k, v in j["categories"].items())
        )
    print(f"analysis: {paths['analysis']}\n          {paths['analysis_md']}")
    return EXIT_OK
