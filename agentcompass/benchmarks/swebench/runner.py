"""Grade one SWE-bench instance inside its environment: reset, apply the patch, run /eval.sh, report.

Files written to the attempt directory (SWE-bench's per-instance names): ``prediction.json``,
``patch.diff``, ``eval.sh``, ``test_output.txt``, ``run_instance.log``, ``report.json``.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.interfaces import Environment, Grade

from . import grading
from .specs import InstanceSpec

PATCH_PATH = "/tmp/patch.diff"
EVAL_PATH = "/eval.sh"
OUTPUT_PATH = "/tmp/agentcompass_test_output.txt"
SETUP_FILE = "swebench_setup.json"
APPLY_TIMEOUT_S = 300.0


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class GradeJob:
    """One grading of one instance."""

    row: dict[str, Any]
    spec: InstanceSpec
    patch: str | None
    model_name_or_path: str
    attempt_dir: Path
    workdir: str = "/testbed"
    eval_timeout_s: float = 1800.0
    log_lines: list[str] = field(default_factory=list)

    @property
    def instance_id(self) -> str:
        return self.row["instance_id"]

    def log(self, text: str) -> None:
        self.log_lines.append(text.rstrip("\n"))
        write_atomic(self.attempt_dir / "run_instance.log", "\n".join(self.log_lines) + "\n")


async def _sh(env: Environment, job: GradeJob, cmd: str, timeout: float = APPLY_TIMEOUT_S) -> tuple[int, str]:
    result = await env.exec(cmd, timeout=timeout, cwd=job.workdir)
    return result.exit_code, result.output


async def record_setup(env: Environment, workdir: str, attempt_dir: Path) -> None:
    """Remember HEAD and whether the tree was clean before the agent ran (to restore it before grading)."""
    result = await env.exec("git rev-parse HEAD && git status --porcelain --untracked-files=all",
                            timeout=120, cwd=workdir)
    lines = result.stdout.splitlines()
    if result.exit_code == 0 and lines:
        info = {"head": lines[0].strip(), "clean": len(lines) == 1}
        write_atomic(attempt_dir / SETUP_FILE, json.dumps(info) + "\n")


async def reset_tree(env: Environment, job: GradeJob) -> None:
    """Bring the tree back to the state before the agent ran; the submission is applied on top of it."""
    setup_file = job.attempt_dir / SETUP_FILE
    info = json.loads(setup_file.read_text()) if setup_file.is_file() else {"head": "HEAD", "clean": True}
    cmd = f"git reset --hard {shlex.quote(info['head'])}" + (" && git clean -fd" if info["clean"] else "")
    code, out = await _sh(env, job, cmd)
    job.log(f"reset tree: {cmd} -> exit {code}\n{out}")


async def apply_patch(env: Environment, job: GradeJob) -> bool:
    """The fallback chain; the tree is cleaned between tries; an already-applied patch counts as applied."""
    target = shlex.quote(env.path(PATCH_PATH))
    out = ""
    for n, command in enumerate(grading.APPLY_COMMANDS):
        if n:
            await _sh(env, job, grading.CLEAN_TREE)
        code, out = await _sh(env, job, f"{command} {target}")
        if code == 0:
            job.log(f"{grading.APPLY_PATCH_PASS} ({command}):\n{out}")
            return True
        job.log(f"Failed to apply patch: {command} (exit {code})\n{out}")
    code, _ = await _sh(env, job, f"{grading.ALREADY_APPLIED} {target}")
    if code == 0:
        job.log(f"{grading.APPLY_PATCH_PASS}: verified already applied")
        return True
    job.log(f"{grading.APPLY_PATCH_FAIL}:\n{out}")
    return False


async def run_eval(env: Environment, job: GradeJob) -> tuple[str, bool]:
    """Run /eval.sh with stdout and stderr merged into one file; (output, timed_out)."""
    script = grading.make_eval_script(job.row, job.spec, env.path(job.workdir))
    write_atomic(job.attempt_dir / "eval.sh", script)
    await env.write_file(EVAL_PATH, script.encode("utf-8"), mode=0o755)
    out_path = shlex.quote(env.path(OUTPUT_PATH))
    cmd = f"/bin/bash {shlex.quote(env.path(EVAL_PATH))} > {out_path} 2>&1"
    result = await env.exec(cmd, timeout=job.eval_timeout_s, cwd=job.workdir)
    try:
        output = (await env.read_file(OUTPUT_PATH)).decode("utf-8", errors="replace")
    except Exception as exc:      # the output file itself is missing: report what exec returned
        output = f"{result.output}\n(test output file unreadable: {exc})"
    job.log(f"eval.sh exit {result.exit_code} in {result.duration_s:.1f}s (timed out: {result.timed_out})")
    return output, result.timed_out


def _grade(report: dict[str, Any], job: GradeJob, log: str) -> Grade:
    entry = report[job.instance_id]
    tests_status = entry.get("tests_status")
    status = grading.resolution_status(tests_status) if tests_status else grading.RESOLVED_NO
    details = {"status": status, "patch_successfully_applied": entry["patch_successfully_applied"],
               "tests_status": tests_status, "report": str(job.attempt_dir / "report.json")}
    return Grade(reward=1.0 if entry["resolved"] else 0.0, rewards={"resolved": 1.0 if entry["resolved"] else 0.0},
                 resolved=bool(entry["resolved"]), log=log, details=details)


def _write_report(job: GradeJob, log: str | None) -> dict[str, Any]:
    row = job.row
    report = grading.instance_report(job.instance_id, job.patch, log, job.spec.log_parser,
                                     row["FAIL_TO_PASS"], row["PASS_TO_PASS"], job.spec.eval_type)
    write_atomic(job.attempt_dir / "report.json", json.dumps(report, indent=4) + "\n")
    return report


async def grade_instance(env: Environment, job: GradeJob) -> Grade:
    """Empty patch -> not run; else reset, apply, eval, report. Reward 1.0 iff resolved."""
    pred = {"instance_id": job.instance_id, "model_name_or_path": job.model_name_or_path, "model_patch": job.patch}
    write_atomic(job.attempt_dir / "prediction.json", json.dumps(pred) + "\n")
    if not job.patch or not job.patch.strip():
        return Grade(reward=0.0, rewards={"resolved": 0.0}, resolved=False, details={"status": "empty_patch"})
    write_atomic(job.attempt_dir / "patch.diff", job.patch)
    await reset_tree(env, job)
    await env.write_file(PATCH_PATH, job.patch.encode("utf-8"))
    if not await apply_patch(env, job):
        report = _write_report(job, None)
        grade = _grade(report, job, "\n".join(job.log_lines))
        grade.details["status"] = "patch_failed"
        return grade
    output, timed_out = await run_eval(env, job)
    if timed_out:
        output += f"\n\nTimeout error: {job.eval_timeout_s:g} seconds exceeded."
        write_atomic(job.attempt_dir / "test_output.txt", output)
        return Grade(reward=None, resolved=False, error=f"eval.sh timed out after {job.eval_timeout_s:g}s",
                     log=output[-20000:], details={"status": "error", "reason": "timeout"})
    write_atomic(job.attempt_dir / "test_output.txt", output)
    return _grade(_write_report(job, output), job, output[-20000:])
