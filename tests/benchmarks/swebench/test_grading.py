"""Grading rules without an environment: eval script, log validity, resolution, report.json."""

import json

import pytest

from agentcompass.benchmarks.swebench import grading as g
from agentcompass.benchmarks.swebench.patchset import modified_files
from agentcompass.benchmarks.swebench.specs import get_test_directives, resolve_spec, version_spec
from agentcompass.errors import DatasetError

F2P = ["t.py::test_f1", "t.py::test_f2"]
P2P = ["t.py::test_p1", "t.py::test_p2"]


def log_of(summary: str, exit_code: int | None = None) -> str:
    tail = f">>>>> Test Exit Code: {exit_code}\n" if exit_code is not None else ""
    return f"+ git apply -v -\n+ : '{g.START_TEST_OUTPUT}'\n{summary}+ : '{g.END_TEST_OUTPUT}'\n{tail}"


def status(summary: str, f2p=F2P, p2p=P2P, eval_type="pass_and_fail", exit_code=None) -> tuple[str, dict]:
    rep = g.instance_report("i", "diff", log_of(summary, exit_code), "parse_log_pytest", f2p, p2p, eval_type)["i"]
    full = g.resolution_status(rep["tests_status"]) if "tests_status" in rep else None
    return full, rep


ALL_PASS = "PASSED t.py::test_f1\nPASSED t.py::test_f2\nPASSED t.py::test_p1\nPASSED t.py::test_p2\n"


def test_all_pass_is_resolved_full():
    full, rep = status(ALL_PASS, exit_code=0)
    assert full == g.RESOLVED_FULL and rep["resolved"] is True and rep["patch_successfully_applied"] is True
    assert rep["tests_status"]["FAIL_TO_PASS"] == {"success": F2P, "failure": []}
    assert set(rep["tests_status"]) == {"FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL"}


def test_partial_and_no():
    full, rep = status("PASSED t.py::test_f1\nFAILED t.py::test_f2 - x\nPASSED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert full == g.RESOLVED_PARTIAL and rep["resolved"] is False
    full, _ = status("PASSED t.py::test_f1\nPASSED t.py::test_f2\nFAILED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert full == g.RESOLVED_NO
    full, _ = status("FAILED t.py::test_f1\nFAILED t.py::test_f2\nPASSED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert full == g.RESOLVED_NO


def test_missing_test_counts_as_failed():
    full, rep = status("PASSED t.py::test_f1\nPASSED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert rep["tests_status"]["FAIL_TO_PASS"]["failure"] == ["t.py::test_f2"]
    assert full == g.RESOLVED_PARTIAL


def test_skipped_fails_f2p_but_maintains_p2p():
    full, rep = status("SKIPPED t.py::test_f1\nPASSED t.py::test_f2\nSKIPPED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert rep["tests_status"]["FAIL_TO_PASS"]["failure"] == ["t.py::test_f1"]
    assert rep["tests_status"]["PASS_TO_PASS"]["success"] == P2P
    assert full == g.RESOLVED_PARTIAL


def test_xfail_counts_as_pass_and_error_as_failure():
    full, _ = status("XFAIL t.py::test_f1\nPASSED t.py::test_f2\nPASSED t.py::test_p1\nPASSED t.py::test_p2\n")
    assert full == g.RESOLVED_FULL
    full, _ = status("PASSED t.py::test_f1\nPASSED t.py::test_f2\nERROR t.py::test_p1\nPASSED t.py::test_p2\n")
    assert full == g.RESOLVED_NO


def test_empty_lists_count_as_one():
    full, _ = status("PASSED t.py::test_x\n", f2p=[], p2p=[])
    assert full == g.RESOLVED_FULL


def test_fail_only_counts_only_failed_lines():
    full, _ = status("FAILED t.py::test_other - x\n", eval_type="fail_only")
    assert full == g.RESOLVED_FULL
    full, _ = status("FAILED t.py::test_f1 - x\n", eval_type="fail_only")
    assert full == g.RESOLVED_PARTIAL


@pytest.mark.parametrize(
    "log",
    [
        f"{g.APPLY_PATCH_FAIL}\n",
        log_of(ALL_PASS) + f"{g.TESTS_TIMEOUT}\n",
        log_of(ALL_PASS) + f"{g.RESET_FAILED}\n",
        log_of(ALL_PASS) + f"{g.TESTS_ERROR}\n",
        ALL_PASS,  # no markers
        f"+ : '{g.START_TEST_OUTPUT}'\n{ALL_PASS}",  # no end marker
        log_of("collected 0 items\n"),  # empty map, nothing shows the suite ran
        log_of(ALL_PASS, exit_code=1),  # exit 1 but only PASSED lines: fake output
    ],
    ids=["apply-failed", "timeout", "reset-failed", "tests-errored", "no-markers", "no-end", "empty", "fake-pass"],
)
def test_invalid_logs_are_never_resolved(log):
    rep = g.instance_report("i", "diff", log, "parse_log_pytest", F2P, P2P)["i"]
    expected = {
        "patch_is_None": False,
        "patch_exists": True,
        "patch_successfully_applied": False,
        "resolved": False,
        "infra_failure": False,
    }
    if "collected 0 items" in log:  # advisory tag of swebench 5.x; never changes resolved
        expected["infra_failure_reason"] = "no_tests_collected"
    assert rep == expected


def test_environment_failures_are_tagged_infra_failure():
    rep = g.instance_report("i", "diff", log_of("E   Cannot allocate memory\n"), "parse_log_pytest", F2P, P2P)["i"]
    assert (rep["infra_failure"], rep["infra_failure_reason"], rep["resolved"]) == (True, "out_of_memory", False)
    rep = g.instance_report("i", "diff", log_of("ModuleNotFoundError: x\n"), "parse_log_pytest", F2P, P2P)["i"]
    assert (rep["infra_failure"], rep["infra_failure_reason"]) == (False, "missing_module")


def test_fail_only_with_empty_map_is_invalid_not_resolved():
    rep = g.instance_report("i", "diff", log_of("nothing here\n"), "parse_log_pytest", F2P, [], "fail_only")["i"]
    assert rep["resolved"] is False and rep["patch_successfully_applied"] is False


def test_nonzero_exit_with_failures_is_valid():
    full, rep = status(ALL_PASS.replace("PASSED t.py::test_f2", "FAILED t.py::test_f2"), exit_code=1)
    assert rep["patch_successfully_applied"] is True and full == g.RESOLVED_PARTIAL


def test_results_outside_markers_are_used_as_fallback():
    log = f"+ : '{g.START_TEST_OUTPUT}'\n+ : '{g.END_TEST_OUTPUT}'\n{ALL_PASS}"
    assert g.parse_test_log(log, "parse_log_pytest")[1] is True


def test_ids_with_spaces_and_truncated_brackets():
    log = log_of("PASSED t.py::test_p[a b c]\n")
    sm, ok = g.parse_test_log(log, "parse_log_pytest_v2")
    assert ok and sm == {"t.py::test_p[a b c]": "PASSED"}
    assert g.case_passed("t.py::test_p[a b c]", sm)
    assert g.case_passed("t.py::test_p[a b", sm)  # truncated id: prefix match
    assert not g.case_passed("t.py::test_q", sm) and g.case_failed("t.py::test_q", sm)


def test_patch_none_and_report_shape():
    rep = g.instance_report("i", None, "", "parse_log_pytest", F2P, P2P)
    assert rep == {
        "i": {
            "patch_is_None": True,
            "patch_exists": False,
            "patch_successfully_applied": False,
            "resolved": False,
            "infra_failure": False,
        }
    }
    json.dumps(rep)


# --------------------------------------------------------------------------- eval script and specs

TEST_PATCH = """diff --git a/tests/test_a.py b/tests/test_a.py
index 1..2 100644
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1 +1,2 @@
 x
+y
diff --git a/tests/new_test.py b/tests/new_test.py
new file mode 100644
index 0000000..3
--- /dev/null
+++ b/tests/new_test.py
@@ -0,0 +1 @@
+z
diff --git a/tests/data/fixture.json b/tests/data/fixture.json
index 1..2 100644
--- a/tests/data/fixture.json
+++ b/tests/data/fixture.json
@@ -1 +1 @@
-1
+2
"""


def row(repo="calc/calc", version="0.1", **kw):
    return {
        "instance_id": "i",
        "repo": repo,
        "version": version,
        "base_commit": "abc123",
        "test_patch": TEST_PATCH,
        **kw,
    }


def test_modified_files_and_directives():
    assert modified_files(TEST_PATCH) == ["tests/test_a.py", "tests/data/fixture.json"]
    assert get_test_directives("x/y", TEST_PATCH) == ["tests/test_a.py", "tests/new_test.py"]
    assert get_test_directives("django/django", TEST_PATCH) == ["test_a", "new_test"]
    dj = "diff --git a/tests/forms_tests/tests/test_forms.py b/tests/forms_tests/tests/test_forms.py\n"
    assert get_test_directives("django/django", dj) == ["forms_tests.tests.test_forms"]


def test_eval_script_shape():
    r = row("pydata/xarray", "2022.06")
    lines = g.make_eval_script(r, resolve_spec(r)).splitlines()
    assert lines[:2] == ["#!/bin/bash", "set -uxo pipefail"] and "set -e" not in lines
    reset = "git checkout abc123 tests/test_a.py tests/data/fixture.json"
    assert lines.count(reset) == 2 and not any(ln.startswith("rm -f") for ln in lines)
    start, end = lines.index(f": '{g.START_TEST_OUTPUT}'"), lines.index(f": '{g.END_TEST_OUTPUT}'")
    assert lines[start + 1] == "pytest -rA tests/test_a.py tests/new_test.py"
    assert lines[end - 1] == "SWEBENCH_TEST_EXIT_CODE=$?"
    assert lines[end + 1] == 'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"'
    heredoc = lines.index("git apply -v - <<'EOF_114329324912'")
    assert heredoc < start and lines.index(reset) < heredoc and lines.index("python -m pip install -e .") < heredoc
    assert "git -c core.fileMode=false diff abc123" in lines


def test_spec_table_per_version_and_dataset_overrides():
    dj = resolve_spec(row("django/django", "3.0"))
    assert dj.test_cmd.startswith("./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 ")
    assert dj.log_parser == "parse_log_django" and dj.install == "python -m pip install -e ."
    assert dj.eval_commands[0].startswith("sed -i '/en_US.UTF-8/")
    assert "export PYTHONIOENCODING=utf8" in version_spec("django/django", "2.2").eval_commands
    assert version_spec("django/django", "4.0").eval_commands == ()
    assert version_spec("django/django", "1.9").test_cmd == "./tests/runtests.py --verbosity 2"
    assert version_spec("django/django", "1.11").install == "python setup.py install"
    assert version_spec("astropy/astropy", "1.3").test_cmd.endswith("console_output_style=classic --tb=no")
    assert version_spec("astropy/astropy", "5.0").test_cmd == "pytest -rA"
    assert resolve_spec(row("sympy/sympy", "1.12")).log_parser == "parse_log_sympy"
    custom = resolve_spec(
        row(
            "markedjs/marked",
            "1",
            log_parser="parse_log_pytest_v2",
            eval_type="fail_only",
            eval_script="#!/bin/bash\nset -uxo pipefail\n: '>>>>> Start Test Output'\nrun\n: '>>>>> End Test Output'\n",
        )
    )
    assert (custom.log_parser, custom.eval_type) == ("parse_log_pytest_v2", "fail_only")
    script = g.make_eval_script(row(), custom)
    assert script.splitlines() == [
        "#!/bin/bash",
        "set -uxo pipefail",
        ": '>>>>> Start Test Output'",
        "run",
        "SWEBENCH_TEST_EXIT_CODE=$?",
        ": '>>>>> End Test Output'",
        'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
    ]


@pytest.mark.parametrize(
    "repo,version,hint",
    [("django/django", "9.9", "known versions: 1.4, 1.5"), ("calc/calc", "0.1", "not a SWE-bench repository")],
)
def test_unknown_pair_is_an_error_naming_both(repo, version, hint):
    with pytest.raises(DatasetError) as err:
        resolve_spec(row(repo, version))
    msg = str(err.value)
    assert f"repo {repo!r} version {version!r}" in msg and hint in msg and "repo_specs" in msg


def test_user_specs_add_pairs():
    from agentcompass.benchmarks.swebench.specs import RepoSpec

    extra = {
        "calc/calc": {"*": RepoSpec("pytest -x", "parse_log_pytest")},
        "django/django": {"9.9": RepoSpec("./t.py", "parse_log_django")},
    }
    assert resolve_spec(row(), extra).test_cmd == "pytest -x tests/test_a.py tests/new_test.py"
    assert resolve_spec(row("django/django", "9.9"), extra).test_cmd == "./t.py test_a new_test"
