"""Grade one SWE-bench instance in an environment: apply the patch, run /eval.sh, write report.json.

As the official harness does it (``grade_in: fresh``): the environment is a new one from the instance image, the
model patch goes through the fallback chain, a patch that does not apply ends the grading without a report
(the run report counts it as an error), a timed-out test run appends SWE-bench's timeout line and writes no
report either. ``grade_in: agent`` first resets the agent's tree to the commit it started from.

Files written to the attempt directory (SWE-bench's per-instance names): ``prediction.json``,
``patch.diff``, ``eval.sh``, ``test_output.txt``, ``run_instance.log``, ``report.json``.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from agentcompass.errors import VerifierError
from agentcompass.interfaces import Environment, Grade
from agentcompass.kit import write_atomic

from . import grading
from .shapes import InstanceReport, SweBenchInstance
from .specs import InstanceSpec

PATCH_PATH = "/tmp/patch.diff"
EVAL_PATH = "/eval.sh"
OUTPUT_PATH = "/tmp/agentcompass_test_output.txt"
GIT_CONFIG_PATH = "/tmp/agentcompass.gitconfig"
SETUP_FILE = "swebench_setup.json"
APPLY_TIMEOUT_S = 300.0


@dataclass
class GradeJob:
    """One grading of one instance."""

    row: SweBenchInstance
    spec: InstanceSpec
    patch: str | None
    model_name_or_path: str
    attempt_dir: Path
    workdir: str = "/testbed"
    eval_timeout_s: float = 1800.0
    fresh: bool = True  # the environment is a new one from the instance image
    log_lines: list[str] = field(default_factory=list)

    @property
    def instance_id(self) -> str:
        return self.row["instance_id"]

    def log(self, text: str) -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        self.log_lines.append(f"{stamp} - INFO - {text.rstrip(chr(10))}")
        write_atomic(self.attempt_dir / "run_instance.log", "\n".join(self.log_lines) + "\n")


async def _sh(env: Environment, job: GradeJob, cmd: str, timeout: float = APPLY_TIMEOUT_S) -> tuple[int, str]:
    result = await env.exec(cmd, timeout=timeout, cwd=job.workdir)
    return result.exit_code, result.output


async def record_setup(env: Environment, workdir: str, attempt_dir: Path) -> None:
    """Remember HEAD and whether the tree was clean before the agent ran (``grade_in: agent`` restores it)."""
    result = await env.exec(
        "git rev-parse HEAD && git status --porcelain --untracked-files=all", timeout=120, cwd=workdir
    )
    lines = result.stdout.splitlines()
    if result.exit_code == 0 and lines:
        info = {"head": lines[0].strip(), "clean": len(lines) == 1}
        write_atomic(attempt_dir / SETUP_FILE, json.dumps(info) + "\n")


async def reset_tree(env: Environment, job: GradeJob) -> None:
    """``grade_in: agent``: bring the agent's tree back to its start; the submission is applied on top of it."""
    setup_file = job.attempt_dir / SETUP_FILE
    info = json.loads(setup_file.read_text()) if setup_file.is_file() else {"head": "HEAD", "clean": True}
    cmd = f"git reset --hard {shlex.quote(info['head'])}" + (" && git clean -fd" if info["clean"] else "")
    code, out = await _sh(env, job, cmd)
    job.log(f"reset tree: {cmd} -> exit {code}\n{out}")


async def check_fresh(env: Environment, job: GradeJob) -> None:
    """A fresh environment must hold the instance's repository (it comes from the instance image)."""
    code, out = await _sh(env, job, "git rev-parse HEAD", timeout=120)
    if code != 0:
        raise VerifierError(
            f"grade_in=fresh: the grading environment has no git repository at {job.workdir} "
            f"({out.strip()[:200]}); it must open from the instance image (the docker "
            f"environment does); otherwise set benchmark_params.grade_in='agent' (not official)"
        )


async def apply_patch(env: Environment, job: GradeJob) -> bool:
    """The fallback chain; the tree is cleaned between tries; an already-applied patch counts as applied."""
    target = shlex.quote(env.path(PATCH_PATH))
    out = ""
    for n, command in enumerate(grading.APPLY_COMMANDS):
        if n:
            await _sh(env, job, grading.CLEAN_TREE)
        code, out = await _sh(env, job, f"{command} {target}")
        if code == 0:
            job.log(f"{grading.APPLY_PATCH_PASS}:\n{out}")
            return True
        job.log(f"Failed to apply patch to container: {command}")
    code, _ = await _sh(env, job, f"{grading.ALREADY_APPLIED} {target}")
    if code == 0:
        job.log(f"{grading.APPLY_PATCH_PASS}: verified already applied")
        return True
    job.log(f"{grading.APPLY_PATCH_FAIL}:\n{out}")
    return False


async def run_eval(env: Environment, job: GradeJob) -> tuple[str, bool]:
    """Run /eval.sh with stdout and stderr merged into one file; (output, timed_out)."""
    repo_dir = env.path(job.workdir)
    script = grading.make_eval_script(job.row, job.spec, repo_dir)
    write_atomic(job.attempt_dir / "eval.sh", script)
    await env.write_file(EVAL_PATH, script.encode("utf-8"), mode=0o755)
    out_path = shlex.quote(env.path(OUTPUT_PATH))
    cmd = f"/bin/bash {shlex.quote(env.path(EVAL_PATH))} > {out_path} 2>&1"
    # on a host-mapped environment (local) the script's `git config --global` must not touch the user's config
    extra = {"GIT_CONFIG_GLOBAL": env.path(GIT_CONFIG_PATH)} if repo_dir != job.workdir else None
    result = await env.exec(cmd, timeout=job.eval_timeout_s, cwd=job.workdir, env=extra)
    try:
        output = (await env.read_file(OUTPUT_PATH)).decode("utf-8", errors="replace")
    except Exception as exc:  # the output file itself is missing: report what exec returned
        output = f"{result.output}\n(test output file unreadable: {exc})"
    job.log(f"Test runtime: {result.duration_s:_.2f} seconds (exit {result.exit_code}, timed out: {result.timed_out})")
    return output, result.timed_out


def _grade(report: dict[str, InstanceReport], job: GradeJob, log: str) -> Grade:
    entry = report[job.instance_id]
    tests_status = entry.get("tests_status")
    status = grading.resolution_status(tests_status) if tests_status else grading.RESOLVED_NO
    details = {
        "status": status,
        "patch_successfully_applied": entry["patch_successfully_applied"],
        "tests_status": tests_status,
        "report": str(job.attempt_dir / "report.json"),
    }
    if "infra_failure_reason" in entry:
        details.update(infra_failure=entry["infra_failure"], infra_failure_reason=entry["infra_failure_reason"])
    return Grade(
        reward=1.0 if entry["resolved"] else 0.0,
        rewards={"resolved": 1.0 if entry["resolved"] else 0.0},
        resolved=bool(entry["resolved"]),
        log=log,
        details=details,
    )


def _write_report(job: GradeJob, log: str) -> dict[str, InstanceReport]:
    row = job.row
    report = grading.instance_report(
        job.instance_id,
        job.patch,
        log,
        job.spec.log_parser,
        row["FAIL_TO_PASS"],
        row["PASS_TO_PASS"],
        job.spec.eval_type,
        version=str(row.get("version") or ""),
    )
    write_atomic(job.attempt_dir / "report.json", json.dumps(report, indent=4))
    job.log(f"report: {report}\nResult for {job.instance_id}: resolved: {report[job.instance_id]['resolved']}")
    return report


async def _git_diff(env: Environment, job: GradeJob) -> str:
    return (await _sh(env, job, "git -c core.fileMode=false diff"))[1].strip()


def is_empty(patch: str | None) -> bool:
    """SWE-bench's test: ``""`` or null (a whitespace-only patch is run, and fails to apply)."""
    return patch in ("", None)


def _write_prediction(job: GradeJob) -> None:
    pred = {"instance_id": job.instance_id, "model_name_or_path": job.model_name_or_path, "model_patch": job.patch}
    write_atomic(job.attempt_dir / "prediction.json", json.dumps(pred) + "\n")


def grade_empty(job: GradeJob) -> Grade:
    """An empty patch is not run (SWE-bench lists it as empty_patch); its prediction is still recorded."""
    _write_prediction(job)
    return Grade(reward=0.0, rewards={"resolved": 0.0}, resolved=False, details={"status": "empty_patch"})


async def grade_instance(env: Environment, job: GradeJob) -> Grade:
    """Empty patch -> not run; else (reset,) apply, eval, report. Reward 1.0 iff resolved."""
    if is_empty(job.patch):
        return grade_empty(job)
    _write_prediction(job)
    write_atomic(job.attempt_dir / "patch.diff", job.patch)
    await (check_fresh(env, job) if job.fresh else reset_tree(env, job))
    await env.write_file(PATCH_PATH, job.patch.encode("utf-8"))
    if not await apply_patch(env, job):  # the official harness writes no report: an error instance
        return Grade(
            reward=0.0,
            rewards={"resolved": 0.0},
            resolved=False,
            log="\n".join(job.log_lines),
            details={"status": "patch_failed", "patch_successfully_applied": False},
        )
    job.log(f"Git diff before:\n{await _git_diff(env, job)}")
    output, timed_out = await run_eval(env, job)
    if timed_out:
        output += f"\n\nTimeout error: {job.eval_timeout_s:g} seconds exceeded."
        write_atomic(job.attempt_dir / "test_output.txt", output)
        job.log(f"Test timed out after {job.eval_timeout_s:g} seconds.")
        return Grade(
            reward=None,
            resolved=False,
            error=f"eval.sh timed out after {job.eval_timeout_s:g}s",
            log=output[-20000:],
            details={"status": "error", "reason": "timeout"},
        )
    write_atomic(job.attempt_dir / "test_output.txt", output)
    job.log(f"Git diff after:\n{await _git_diff(env, job)}")
    return _grade(_write_report(job, output), job, output[-20000:])
