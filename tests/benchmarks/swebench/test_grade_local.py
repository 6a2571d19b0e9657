"""Grading end to end in a temporary checkout (the local environment): real git, bash, patch and pytest."""

from __future__ import annotations

import json

import pytest

from agentcompass.benchmarks.swebench import grading, runner
from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.interfaces import EnvSpec
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import grade, make_bench, read_report, run


async def _open(tmp_path, calc):
    provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)
    env = await provider.open(EnvSpec(task_id=fixture.INSTANCE_ID, workdir="/testbed"))
    await env.upload(calc.repo, "/testbed")
    return env


def grade_local(tmp_path, calc, submission, name="a"):
    bench = make_bench(tmp_path / "data", dataset_path=str(calc.jsonl))
    task = bench.load()[0]

    async def go():
        env = await _open(tmp_path / name, calc)
        try:
            return await grade(bench, task, env, submission, tmp_path / name / "attempt")
        finally:
            await env.close()

    return run(go()), tmp_path / name / "attempt"


def test_gold_patch_resolves(tmp_path, calc):
    g, adir = grade_local(tmp_path, calc, calc.row["patch"])
    assert (g.reward, g.resolved, g.details["status"]) == (1.0, True, "RESOLVED_FULL")
    rep = read_report(adir)
    assert rep["patch_successfully_applied"] and rep["resolved"]
    assert sorted(rep["tests_status"]["FAIL_TO_PASS"]["success"]) == sorted(json.loads(calc.row["FAIL_TO_PASS"]))
    for name in ("patch.diff", "eval.sh", "test_output.txt", "run_instance.log", "report.json", "prediction.json"):
        assert (adir / name).is_file(), name
    assert (adir / "patch.diff").read_text() == calc.row["patch"]
    assert ">>>>> Test Exit Code: 0" in (adir / "test_output.txt").read_text()


def test_wrong_and_partial_patches(tmp_path, calc):
    g, adir = grade_local(tmp_path, calc, fixture.patch_for(calc.repo, fixture.WRONG_OPS), "wrong")
    assert (g.reward, g.resolved, g.details["status"]) == (0.0, False, "RESOLVED_NO")
    assert read_report(adir)["patch_successfully_applied"] is True
    g, _ = grade_local(tmp_path, calc, fixture.patch_for(calc.repo, fixture.HALF_OPS), "half")
    assert (g.reward, g.details["status"]) == (0.0, "RESOLVED_PARTIAL")


@pytest.mark.parametrize("submission", ["", None])
def test_empty_patch_is_not_run(tmp_path, calc, submission):
    g, adir = grade_local(tmp_path, calc, submission)
    assert (g.reward, g.resolved, g.details) == (0.0, False, {"status": "empty_patch"})
    assert not (adir / "report.json").exists() and not (adir / "eval.sh").exists()
    assert json.loads((adir / "prediction.json").read_text())["model_patch"] == submission


@pytest.mark.parametrize("which", ["context", "whitespace"])
def test_patch_that_does_not_apply(tmp_path, calc, which):
    """As in the official harness: no report.json (the run report counts an error), tests never run."""
    bad = {"context": calc.row["patch"].replace("-    return a - b", "-    return a / b / c"), "whitespace": "  \n"}[
        which
    ]
    g, adir = grade_local(tmp_path, calc, bad)
    assert (g.reward, g.resolved, g.details["status"]) == (0.0, False, "patch_failed")
    assert not (adir / "report.json").exists() and not (adir / "eval.sh").exists()
    log = (adir / "run_instance.log").read_text()
    assert ">>>>> Patch Apply Failed" in log
    assert all(f"Failed to apply patch to container: {cmd}\n" in log for cmd in grading.APPLY_COMMANDS)


def test_crlf_patch_applies_through_the_fallback_chain(tmp_path, calc):
    crlf = calc.row["patch"].replace("\n", "\r\n")
    g, adir = grade_local(tmp_path, calc, crlf)
    assert g.resolved is True, (adir / "run_instance.log").read_text()
    assert "Failed to apply patch to container: git apply --verbose\n" in (adir / "run_instance.log").read_text()


def test_fuzzy_patch_applies_with_patch_fuzz(tmp_path, calc):
    fuzzy = calc.row["patch"].replace('     """Return the sum of a and b."""', '     """Sum of a and b (docs)."""')
    g, adir = grade_local(tmp_path, calc, fuzzy)
    log = (adir / "run_instance.log").read_text()
    assert g.resolved is True, log
    failed = [ln.split(": ", 1)[1] for ln in log.splitlines() if "Failed to apply patch to container" in ln]
    assert failed == ["git apply --verbose", "git apply --verbose --3way", "git apply --verbose --reject"], log
    assert ">>>>> Applied Patch:" in log and "with fuzz" in log


@pytest.mark.parametrize("strip_index", [False, True], ids=["3way-merge", "reverse-check"])
def test_already_applied_patch_counts_as_applied(tmp_path, calc, strip_index):
    patch = calc.row["patch"]
    if strip_index:  # without blob ids --3way cannot run: only the reverse check recognises it
        patch = "\n".join(ln for ln in patch.split("\n") if not ln.startswith("index "))
    bench = make_bench(tmp_path / "data", dataset_path=str(calc.jsonl))
    task = bench.load()[0]

    async def go():
        env = await _open(tmp_path, calc)
        try:
            job = runner.GradeJob(
                row=task.data, spec=None, patch=patch, model_name_or_path="m", attempt_dir=tmp_path / "attempt"
            )
            await env.write_file(runner.PATCH_PATH, patch.encode())
            first = await runner.apply_patch(env, job)
            await env.exec("git -c user.email=a@b -c user.name=a commit -qam fix", cwd="/testbed")
            job.log_lines.clear()
            second = await runner.apply_patch(env, job)  # HEAD already has it
            ops = (await env.read_file("/testbed/calc/ops.py")).decode()
            return first, second, ops, "\n".join(job.log_lines)
        finally:
            await env.close()

    first, second, ops, log = run(go())
    assert first and second, log
    assert "return a + b" in ops and "return a + b + b" not in ops and ">>>>> Patch Apply Failed" not in log
    assert ("verified already applied" in log) == strip_index, log


def test_agent_changes_in_the_tree_are_reset_before_applying(tmp_path, calc):
    """grade_in: agent (not official) grades in the agent's tree after resetting it."""
    bench = make_bench(tmp_path / "data", dataset_path=str(calc.jsonl), grade_in="agent")
    task = bench.load()[0]

    async def go():
        env = await _open(tmp_path, calc)
        try:
            from agentcompass.interfaces import AgentResult, AttemptContext

            ctx = AttemptContext(task=task, attempt=1, attempt_dir=tmp_path / "att", benchmark=bench)
            ctx.attempt_dir.mkdir()
            await bench.setup(task, env, ctx)
            # the agent edited, created and committed files; the submission is the gold diff
            await env.exec(
                "printf 'x = 1\\n' > scratch.py && git add -A && git -c user.email=a@b -c user.name=a "
                "commit -qm wip && git apply " + env.path(runner.PATCH_PATH) + " || true",
                cwd="/testbed",
            )
            return await bench.grade(task, env, AgentResult(submission=calc.row["patch"]), ctx)
        finally:
            await env.close()

    assert run(go()).resolved is True
