"""Every Terminal-Bench 1 parser on canned outputs written for the test (tb1_logs.CASES), and the grading rule."""

from __future__ import annotations

import pytest

from agentcompass.benchmarks.terminal_bench.tb1 import grade_tb1_output
from agentcompass.benchmarks.terminal_bench.tb1_parsers import PARSERS, get_parser
from agentcompass.errors import VerifierError
from tests.benchmarks.terminal_bench.tb1_logs import CASES, ERROR


def test_every_terminal_bench_1_parser_has_cases():
    assert sorted(PARSERS) == ["mlebench", "pytest", "swebench", "swelancer", "sweperf"]
    assert {parser for parser, *_ in CASES} == set(PARSERS)


@pytest.mark.parametrize("parser,case,text,expected", CASES, ids=[f"{p}-{c}" for p, c, *_ in CASES])
def test_parser_on_canned_output(parser, case, text, expected):
    if expected == ERROR:
        with pytest.raises(VerifierError, match="parse error"):
            get_parser(parser)(text)
        reward, results, error = grade_tb1_output(text, parser)
        assert reward is None and results == {} and error.startswith("VerifierError: parse error")
        return
    assert get_parser(parser)(text) == expected
    reward, results, error = grade_tb1_output(text, parser)
    if not expected:  # an empty result is not a pass (README)
        assert reward is None and "found no test results" in error
    else:
        assert error is None and reward == (1.0 if set(expected.values()) == {"passed"} else 0.0)


def test_unknown_parser_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown parser_name 'junit'; valid: pytest, swebench"):
        get_parser("junit")
