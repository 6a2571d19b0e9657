"""Agreement with Terminal-Bench 1's own parsers (``terminal-bench`` 0.2.18 in the ``terminal-bench`` reference
venv, Python 3.12): every canned output of tb1_logs.CASES goes through both, in one reference run."""

from __future__ import annotations

from agentcompass.benchmarks.terminal_bench.tb1_parsers import get_parser
from agentcompass.errors import VerifierError
from agentcompass.testing.reference import run_reference
from tests.benchmarks.terminal_bench.reference_support import require_reference
from tests.benchmarks.terminal_bench.tb1_logs import CASES, ERROR

THEIRS = """
import json, os, sys
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"      # no network look-up at import
from terminal_bench.parsers.parser_factory import ParserFactory, ParserName
out = []
for name, text in json.load(sys.stdin):
    try:
        parsed = ParserFactory.get_parser(ParserName(name)).parse(text)
        out.append({k: v.value for k, v in parsed.items()})
    except ValueError:
        out.append("error")
print(json.dumps(out))
"""


def _ours(name: str, text: str) -> object:
    try:
        return get_parser(name)(text)
    except VerifierError:
        return ERROR


def test_parsers_agree_with_terminal_bench_0_2_18():
    require_reference("terminal-bench")
    theirs = run_reference("terminal-bench", THEIRS, [[p, text] for p, _, text, _ in CASES])
    ours = [_ours(p, text) for p, _, text, _ in CASES]
    mismatches = [(p, case, o, t) for (p, case, _, _), o, t in zip(CASES, ours, theirs, strict=True) if o != t]
    assert not mismatches, mismatches
    assert len(theirs) == len(CASES) and sum(t == ERROR for t in theirs) == 4
