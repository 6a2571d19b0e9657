"""``analysis.md``: the analysis as a readable report."""

from __future__ import annotations

from typing import Any

from agentcompass._orchestrator.record import Interval

from .judge import TAXONOMY
from .shapes import Analysis

_SHOWN = ("turns", "total_tokens", "cost_usd", "duration_s")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |")
    return out + [""]


def _usd(v: Any) -> str:
    return "unknown" if v is None else f"{float(v):.6f}"


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _outcomes(a: Analysis) -> list[str]:
    b = a["breakdown"]
    n_samples = b.get("n_samples", b["n_tasks"])
    what = "tasks" if n_samples == b["n_tasks"] else "samples"
    samples = "" if what == "tasks" else f" ({n_samples} samples)"
    tries = b.get("n_tries", b.get("n_attempts"))  # older analysis.json: n_attempts
    lines = [
        "## Outcomes",
        "",
        f"{b['n_tasks']} tasks{samples}, {tries} tries ({b['tasks_retried']} {what} retried).",
        "",
    ]
    lines += _table(
        ["outcome", what, "attempts"],
        [[o, n, b["attempt_outcomes"][o]] for o, n in b["outcomes"].items() if n or b["attempt_outcomes"][o]],
    )
    if b["errors_by_class"]:
        lines += ["Errors by class (final attempts):", ""]
        lines += _table(
            ["class", "error type", "tasks"],
            [[c, t, n] for c, types in b["errors_by_class"].items() for t, n in types.items()],
        )
    extra = [
        f"- limits hit: {', '.join(f'{k} {v}' for k, v in b['limits_hit'].items()) or 'none'}",
        f"- agent timeouts: {b['agent_timeouts']}",
        f"- format errors: {b['format_errors']['total']} in {b['format_errors']['tasks']} tasks",
    ]
    return lines + extra + [""]


def _ci(ci: Interval | None) -> tuple[str, str]:
    if not ci or ci.get("low") is None:
        return "-", (ci.get("method") if ci else None) or "none"
    return f"[{ci['low']:.4f}, {ci['high']:.4f}]", f"{ci['method']} over {ci['n']} tasks"


def _figures(a: Analysis) -> list[str]:
    f = a.get("figures") or {}
    if not f:
        return []
    rows = []
    singles = (
        ("mean_reward", f.get("mean_reward"), f.get("mean_reward_ci")),
        ("mean_reward_valid", f.get("mean_reward_valid"), f.get("mean_reward_valid_ci")),
        ("pass_rate", f.get("pass_rate"), f.get("pass_rate_ci")),
        ("resolved_rate", f.get("resolved_rate"), f.get("resolved_rate_ci")),
    )
    for name, value, ci in singles:
        if name in f:
            rows.append([name, "-" if value is None else f"{value:.4f}", *_ci(ci)])
    per_k = (("@", f.get("pass_at_k"), f.get("pass_at_k_ci")), ("^", f.get("pass_hat_k"), f.get("pass_hat_k_ci")))
    for sign, values, cis in per_k:
        for k, v in (values or {}).items():
            rows.append([f"pass{sign}{k}", f"{v:.4f}", *_ci((cis or {}).get(k))])
    head = ["## Figures", "", "Each with its 95 % interval over tasks (docs/statistics.md).", ""]
    return head + _table(["figure", "value", "95% interval", "method"], rows)


def _spread(a: Analysis) -> list[str]:
    s = a.get("task_spread")
    if not s:
        return []
    c = s["counts"]
    share = s["between_task_share"]
    lines = [
        f"## Per-task pass rates ({s['samples_per_task']:g} samples per task)",
        "",
        f"{c['always']} tasks always pass, {c['never']} never pass, {c['sometimes']} sometimes pass (coin flips "
        "first). "
        + (
            f"{share:.0%} of the reward variance is between tasks, the rest is sample-to-sample noise."
            if share is not None
            else "No reward variance."
        ),
        "",
    ]
    flips = {t: i for i, t in enumerate(s["coin_flips"])}
    ordered = sorted(s["tasks"], key=lambda t: (flips.get(t["task_id"], len(flips)), t["class"], t["task_id"]))
    rows = [
        [t["task_id"], f"{t['passed']}/{t['n']}", f"[{t['ci'][0]:.2f}, {t['ci'][1]:.2f}]", t["class"]]
        for t in ordered[:50]
    ]
    return lines + _table(["task", "passed", "95% interval (Wilson, over its samples)", "class"], rows)


def _distributions(a: Analysis) -> list[str]:
    d = a["distributions"]
    lines = [
        "## Distributions (per task, p50 / p90)",
        "",
        "Tokens (input + output), cost and duration are summed "
        "over a task's attempts; turns are the final attempt's. analysis.json also has mean, max and "
        "input / output tokens separately.",
        "",
    ]
    groups = [("all", d["overall"])] + list(d["by_outcome"].items())
    rows = [
        [name, stats["turns"]["n"]] + [f"{_num(stats[f]['p50'])} / {_num(stats[f]['p90'])}" for f in _SHOWN]
        for name, stats in groups
    ]
    return lines + _table(["outcome", "tasks", "turns", "tokens", "cost_usd", "duration_s"], rows)


def _errors(a: Analysis) -> list[str]:
    groups = a["error_groups"]
    if not groups:
        return ["## Most frequent errors", "", "No failed attempts.", ""]
    rows = [[g["count"], g["n_tasks"], g["error_class"], g["pattern"][:160], ", ".join(g["tasks"][:3])] for g in groups]
    return ["## Most frequent errors", ""] + _table(
        ["attempts", "tasks", "class", "message (normalized)", "tasks (first)"], rows
    )


def _tops(a: Analysis) -> list[str]:
    lines = ["## Slowest tasks", ""]
    lines += _table(
        ["task", "duration_s", "outcome", "attempts"],
        [[r["task_id"], _num(r["duration_s"]), r["outcome"], r["attempts"]] for r in a["slowest"]],
    )
    lines += ["## Costliest tasks", ""]
    if a["costliest"]:
        lines += _table(
            ["task", "cost_usd", "outcome", "turns"],
            [[r["task_id"], _num(r["cost_usd"]), r["outcome"], r["turns"]] for r in a["costliest"]],
        )
    else:
        lines += ["No cost was recorded (no model, or no prices configured).", ""]
    return lines


def _judge(a: Analysis) -> list[str]:
    j = a.get("judge")
    if not j:
        return ["## Judge", "", "No judge model configured (analysis_params.model).", ""]
    usage = j["usage"]
    lines = [
        "## Judge",
        "",
        f"Model `{j['model'].get('id')}`: {j['n_judged']} attempts judged, "
        f"{j['n_not_judged']} not judged, {j['n_judge_errors']} judge errors; {usage['calls']} calls, "
        f"{usage['input']} input / {usage['output']} output tokens, cost_usd {_usd(usage['cost_usd'])}.",
        "",
    ]
    lines += _table(
        ["category", "attempts", "meaning"],
        [[c, j["categories"].get(c, 0), TAXONOMY[c]] for c in TAXONOMY if j["categories"].get(c)],
    )
    lines += _table(
        ["task", "attempt", "outcome", "category", "reason"],
        [
            [
                lb["task_id"],
                lb["attempt"],
                lb["outcome"],
                lb.get("category") or "-",
                lb.get("reason")
                or lb.get("judge_error")
                or ("(not judged: max_judge_attempts reached)" if lb.get("not_judged") else ""),
            ]
            for lb in j["labels"]
        ],
    )
    return lines


def render(a: Analysis) -> str:
    run = a.get("run", {})
    head = [
        f"# Analysis of run {run.get('run_name', '?')}/{run.get('run_id', '?')}",
        "",
        f"benchmark `{run.get('benchmark')}`, harness `{run.get('harness')}`, model `{run.get('model')}`, "
        f"environment `{run.get('environment')}`; analysed {a['created_at']}.",
        "",
    ]
    body = _outcomes(a) + _figures(a) + _spread(a) + _distributions(a) + _errors(a) + _tops(a) + _judge(a)
    return "\n".join(head + body).rstrip() + "\n"
