"""What ``agentcompass compare`` prints: ``table`` (text), ``md``, ``json`` or ``csv`` (one row per pair)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from agentcompass._stats.shapes import BootstrapInterval, DiffInterval, Interval

from .comparison import Comparison, Pair, Power

FORMATS = ("table", "md", "json", "csv")
SHOWN_FLIPS = 10
CSV_FIELDS = (
    "a", "b", "run_a", "run_b", "n_tasks", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "ci_method",
    "bootstrap_low", "bootstrap_high", "test", "p_value", "p_holm", "significant", "b_better", "a_better",
    "mde_80", "detect", "tasks_needed", "samples_needed",
)  # fmt: skip


def _f(v: Any, digits: int = 4) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _p(v: Any) -> str:
    return "-" if v is None else (f"{v:.2e}" if v < 1e-4 else f"{v:.4f}")


def _name(c: Comparison, label: str) -> str:
    run = next(r for r in c["runs"] if r["label"] == label)
    return f"{label} {run['run_name']}/{run['run_id']}"


def _ci(ci: Interval | DiffInterval | BootstrapInterval | None) -> str:
    return "-" if not ci or ci.get("low") is None else f"[{ci['low']:.4f}, {ci['high']:.4f}]"


def _header(c: Comparison) -> list[str]:
    t = c["tasks"]
    errored = sorted({x for ts in t["errored"].values() for x in ts})
    policy = (
        f"errors excluded: {t['n_excluded']} task(s) errored in some run and are left out (--errors-as-zero scores "
        "them 0, as mean_reward does)"
        if c["errors"] == "excluded"
        else f"errors as zero: {len(errored)} errored task(s) score 0, as mean_reward counts them"
    )
    lines = [
        f"compare {len(c['runs'])} runs of benchmark {c['benchmark']}: {t['n_shared']} tasks shared of "
        f"{t['n_all']}, {len(t['analysed'])} analysed; {policy}",
    ]
    if c.get("score") == "clean":
        lines.append("clean scores: a sample the integrity scan flagged (suspect or hack) scores 0")
    for r in c["runs"]:
        miss, err = t["missing"][r["label"]], t["errored"][r["label"]]
        extra = []
        flagged = (t.get("flagged") or {}).get(r["label"]) or []
        if flagged:
            more = " ..." if len(flagged) > SHOWN_FLIPS else ""
            extra.append(f"flagged {len(flagged)}: {', '.join(flagged[:SHOWN_FLIPS])}{more}")
        if miss:
            extra.append(
                f"missing {len(miss)}: {', '.join(miss[:SHOWN_FLIPS])}{' ...' if len(miss) > SHOWN_FLIPS else ''}"
            )
        if err:
            extra.append(
                f"errored {len(err)}: {', '.join(err[:SHOWN_FLIPS])}{' ...' if len(err) > SHOWN_FLIPS else ''}"
            )
        lines.append(
            f"  {_name(c, r['label'])} ({r.get('harness')}, {r.get('model')})"
            + ("; " + "; ".join(extra) if extra else "")
        )
    return lines


def _board(c: Comparison) -> list[list[str]]:
    rows = [["rank", "run", "mean", "95% interval", "method", "samples/task"]]
    for row in c["leaderboard"]:
        ci = row["ci"]
        rows.append([str(row["rank"]), _name(c, row["label"]), _f(row["mean"]), _ci(ci), ci["method"],
                     ",".join(str(k) for k in row["samples_per_task"]) or "-"])  # fmt: skip
    return rows


def _matrix(c: Comparison) -> list[list[str]]:
    labels = [r["label"] for r in c["runs"]]
    cell: dict[tuple[str, str], str] = {}
    for p in c["pairs"]:
        mark = "*" if p.get("significant") else ""
        if p["mean_diff"] is not None:
            cell[(p["b"], p["a"])] = f"{p['mean_diff']:+.4f}{mark}"
            cell[(p["a"], p["b"])] = f"{-p['mean_diff']:+.4f}{mark}"
    return [["row - column", *labels]] + [[x, *[cell.get((x, y), ".") for y in labels]] for x in labels]


def _flips(tasks: list[str]) -> str:
    more = f" ... (+{len(tasks) - SHOWN_FLIPS})" if len(tasks) > SHOWN_FLIPS else ""
    return ", ".join(tasks[:SHOWN_FLIPS]) + more if tasks else "none"


def _power_text(pw: Power, n: int) -> str:
    text = (
        f"power: {int(pw['power'] * 100)}% to detect {_f(pw['mde'])} with {n} tasks (paired t, alpha {pw['alpha']}, "
        f"sd of per-task differences {_f(pw['sd_diff'])})"
        if pw.get("mde") is not None
        else "power: no figure (fewer than 2 tasks, or every task differs by the same amount)"
    )
    if "detect" in pw:
        tasks = pw.get("tasks_needed")
        text += f"; to detect {pw['detect']}: {tasks if tasks is not None else '-'} tasks"
        samples = pw.get("samples_needed")
        text += f", or {samples} samples per task with these {n} tasks" if samples else f" ({pw.get('samples_note')})"
    return text


def _pair_lines(c: Comparison, p: Pair) -> list[str]:
    head = f"{_name(c, p['b'])}  minus  {_name(c, p['a'])}"
    ci = p["ci"]
    if p["n"] == 0 or ci is None:  # ci is None only with no shared task
        return [head, "  no shared task to compare"]
    test, boot = p.get("test"), p.get("bootstrap")
    perm = test.get("permutation") if test else None
    lines = [
        head,
        f"  difference {p['mean_diff']:+.4f}  95% CI {_ci(ci)} (shown: {ci['method']}, t({p['n'] - 1}) x "
        f"task-clustered SE {_f(ci.get('se'))}); paired bootstrap {_ci(boot)} "
        f"(seed {boot.get('seed') if boot else None}, {boot.get('n_resamples') if boot else None} resamples, "
        "percentile)",
        f"  {test.get('name') if test else None} p={_p(test.get('p_value') if test else None)}, "
        f"Holm-adjusted p={_p(p.get('p_holm'))}: "
        + ("significant" if p.get("significant") else "not significant")
        + f" at {c['alpha']}"
        + (
            f"; sign-flip permutation p={_p(perm['p_value'])} ({'exact' if perm['exact'] else 'Monte Carlo'})"
            if perm
            else ""
        ),  # fmt: skip
        f"  {p['b']} better on {len(p['b_better'])} tasks: {_flips(p['b_better'])}",
        f"  {p['a']} better on {len(p['a_better'])} tasks: {_flips(p['a_better'])}",
        f"  {_power_text(p['power'], p['n'])}",
    ]
    if ci.get("se") == 0:
        lines.append("  (every task differs by the same amount: the t interval is a point; read the bootstrap and p)")
    return lines


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _md_table(rows: list[list[str]]) -> list[str]:
    esc = [[cell.replace("|", "\\|") for cell in r] for r in rows]
    return ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(esc[0])] + [
        "| " + " | ".join(r) + " |" for r in esc[1:]
    ]


def render_table(c: Comparison) -> str:
    lines = _header(c) + ["", "leaderboard (mean over the analysed tasks, 95% interval):"] + _grid(_board(c))
    if len(c["runs"]) > 2:
        lines += ["", "pairwise differences (row - column; * significant after Holm correction):"] + _grid(_matrix(c))
    for p in c["pairs"]:
        lines += [""] + _pair_lines(c, p)
    return "\n".join(lines)


def render_md(c: Comparison) -> str:
    lines = ["# Comparison", ""] + _header(c) + ["", "## Leaderboard", ""] + _md_table(_board(c))
    if len(c["runs"]) > 2:
        lines += ["", "## Pairwise differences", "", "row - column; * significant after Holm correction.", ""]
        lines += _md_table(_matrix(c))
    lines += ["", "## Pairs"]
    for p in c["pairs"]:
        first, *rest = _pair_lines(c, p)
        lines += ["", f"### {first}", ""] + [f"- {x.strip()}" for x in rest]
    return "\n".join(lines) + "\n"


def _csv_row(c: Comparison, p: Pair) -> dict[str, object]:
    ci, boot, test, pw = p.get("ci"), p.get("bootstrap"), p.get("test"), p["power"]
    return {
        "a": p["a"], "b": p["b"], "run_a": _name(c, p["a"])[2:], "run_b": _name(c, p["b"])[2:], "n_tasks": p["n"],
        "mean_a": p["mean_a"], "mean_b": p["mean_b"], "mean_diff": p["mean_diff"],
        "ci_low": ci.get("low") if ci else None, "ci_high": ci.get("high") if ci else None,
        "ci_method": ci.get("method") if ci else None, "bootstrap_low": boot.get("low") if boot else None,
        "bootstrap_high": boot.get("high") if boot else None, "test": test.get("name") if test else None,
        "p_value": test.get("p_value") if test else None,
        "p_holm": p.get("p_holm"), "significant": p.get("significant"), "b_better": len(p["b_better"]),
        "a_better": len(p["a_better"]), "mde_80": pw.get("mde"), "detect": pw.get("detect"),
        "tasks_needed": pw.get("tasks_needed"), "samples_needed": pw.get("samples_needed"),
    }  # fmt: skip


def render_csv(c: Comparison) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for p in c["pairs"]:
        writer.writerow(_csv_row(c, p))
    return out.getvalue()


def render(c: Comparison, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(c, indent=2)
    return {"table": render_table, "md": render_md, "csv": render_csv}[fmt](c)
