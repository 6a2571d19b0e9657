import pytest

from agentcompass.benchmarks.swebench.log_parsers import get_parser
from agentcompass.benchmarks.swebench.log_parsers import python as lp
from tests.benchmarks.swebench import canned_logs as logs


def test_pytest_summary_lines():
    got = lp.parse_log_pytest(logs.PYTEST)
    assert got == {
        "tests/test_ops.py::test_sub": "PASSED",
        "tests/test_ops.py::test_mul": "PASSED",
        "tests/test_ops.py::test_add_fixed": "FAILED",
        "tests/test_ops.py::test_add_negative": "FAILED",
        "tests/test_ops.py::test_param[a": "PASSED",  # ids are the second token, as SWE-bench does
        "tests/test_ops.py::test_known_bug": "XFAIL",
        "tests/test_broken.py": "ERROR",
    }


def test_pytest_skip_summary_count_is_not_a_test():
    assert "[1]" not in lp.parse_log_pytest(logs.PYTEST)
    assert lp.parse_log_pytest("SKIPPED tests/a.py::test_s\n") == {"tests/a.py::test_s": "SKIPPED"}


def test_pytest_v2_strips_ansi_and_reads_status_last_lines():
    got = lp.parse_log_pytest_v2(logs.PYTEST_V2)
    assert got == {
        "astropy/io/tests/test_a.py::test_one": "PASSED",
        "astropy/io/tests/test_a.py::test_two": "FAILED",
        "astropy/io/tests/test_a.py::test_three": "PASSED",
        "astropy/io/tests/test_a.py::test_four": "SKIPPED",
        "astropy/io/tests/test_a.py::test_param[1 2]": "PASSED",  # v2 keeps ids with spaces whole
    }


def test_pytest_options_shortens_path_parameters():
    got = lp.parse_log_pytest_options(logs.PYTEST_OPTIONS)
    assert got == {
        "tests/test_x.py::test_file[/file.txt]": "PASSED",
        "tests/test_x.py::test_url[//host/a/b]": "PASSED",
        "tests/test_x.py::test_plain": "FAILED",
    }


def test_django_statuses_and_continuation_lines():
    got = lp.parse_log_django(logs.DJANGO)
    prefix = "forms_tests.tests.test_forms.FormsTest)"
    assert got[f"test_a ({prefix}"] == "PASSED"
    assert got[f"test_b ({prefix}"] == "FAILED"
    assert got[f"test_c ({prefix}"] == "ERROR"
    assert got[f"test_d ({prefix}"] == "SKIPPED"
    assert got[f"test_e ({prefix}"] == "PASSED"  # "... output" then a lone "ok"
    assert got[f"test_f ({prefix}"] == "PASSED"  # " ...  OK"
    assert got["test_g"] == "ERROR"  # "ERROR: name" header lines
    assert got["test_b"] == "FAILED"


def test_sympy_lines_and_failure_headers():
    got = lp.parse_log_sympy(logs.SYMPY)
    assert got["test_add"] == "PASSED" and got["test_div"] == "PASSED"
    assert got["test_sub"] == "FAILED"
    assert got["test_mul"] == "ERROR"
    assert got["sympy/core/tests/test_basic.py:test_sub"] == "FAILED"


def test_seaborn_lines():
    assert lp.parse_log_seaborn(logs.SEABORN) == {
        "tests/test_core.py::TestA::test_x": "PASSED",
        "tests/test_core.py::TestA::test_y": "PASSED",
        "tests/test_core.py::TestA::test_z": "FAILED",
    }


def test_registry_names_and_unknown_parser():
    assert get_parser("parse_log_django")(logs.DJANGO) == lp.parse_log_django(logs.DJANGO)
    assert get_parser("parse_log_scikit")(logs.PYTEST_V2) == lp.parse_log_pytest_v2(logs.PYTEST_V2)
    with pytest.raises(ValueError, match="unknown log parser 'nope'; valid: .*parse_log_pytest"):
        get_parser("nope")
