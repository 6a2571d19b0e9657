"""What the benchmark's use of the ``agentdojo`` package imports, measured: the ``agentdojo`` extra holds every
distribution the package's loaded modules import at their top, and the package runs (suites, tools, an attack, a
defense, the ground truth, grading) with its declared dependencies the modules never import made unimportable.
This is why the extra installs the package with ``--no-deps`` (agentcompass._deps.NO_DEPS, docs/agentdojo.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import _deps

pytest.importorskip("agentdojo")
REPO = Path(__file__).resolve().parents[3]
NEVER_IMPORTED = ("langchain", "dotenv", "click")  # declared by agentdojo 0.1.35, imported only by its scripts

SCRIPT = r"""
import ast, importlib.abc, importlib.metadata as md, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is made unimportable by the test")
        return None

BLOCKED = set(json.loads(sys.argv[1]))
sys.meta_path.insert(0, Refuse())
from agentcompass.conversation import Transcript
from agentcompass.benchmarks.agentdojo import _package
from agentcompass.benchmarks.agentdojo.benchmark import AgentDojoBenchmark, AgentDojoConfig
from agentcompass.benchmarks.agentdojo.grading import score

bench = AgentDojoBenchmark(AgentDojoConfig(defense="spotlighting_with_delimiting"))
tasks = bench.load()
for suite in bench.config.suites:
    _package.tool_schemas(_package.suites(bench.version)[suite])
verdicts = []
for task_id in ("banking/user_task_0", "banking/user_task_0/injection_task_1", "slack/user_task_1"):
    case = bench.case(task_id)
    messages = [{"role": "assistant", **m} for m in case.ground_truth_messages()]
    transcript = Transcript.from_dict({"messages": messages})
    verdicts.append(score(case, transcript))
found = set()
for name, mod in list(sys.modules.items()):
    if name.split(".")[0] != "agentdojo" or not getattr(mod, "__file__", None) or not mod.__file__.endswith(".py"):
        continue
    for node in ast.parse(open(mod.__file__).read()).body:
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
found -= set(sys.stdlib_module_names) | {"agentdojo", "__future__"}
dists = md.packages_distributions()
print(json.dumps({"verdicts": verdicts, "imports": {m: dists.get(m, [m]) for m in sorted(found)}}))
"""


def _name(spec: str) -> str:
    return spec.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower().replace("_", "-")


def test_the_extra_holds_what_the_used_modules_import_and_nothing_declared_else_is_needed() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(NEVER_IMPORTED)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # the ground truth passes these cases, its calls do not follow the injection (security True without one)
    assert out["verdicts"] == [[True, True], [True, False], [True, True]]
    extra = {_name(s) for s in _deps.EXTRAS["agentdojo"]}
    imported = {m: {_name(d) for d in ds} for m, ds in out["imports"].items()}
    assert {m: ds for m, ds in imported.items() if not ds & extra} == {}
    used = set().union(*imported.values()) | {"email-validator"}  # pydantic imports it for the suites' EmailStr
    assert extra <= used, extra - used
    assert {"langchain", "python-dotenv", "click"}.isdisjoint(extra)
    assert _deps.NO_DEPS["agentdojo"] == ["agentdojo==0.1.35"]
    assert _deps.install_command("agentdojo") == (
        "pip install 'agentcompass[agentdojo]' && pip install --no-deps agentdojo==0.1.35"
    )
