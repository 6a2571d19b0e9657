"""Run inside a throwaway virtual environment by test_deps.py: the missing-extra error, then auto-install."""

import importlib.util
import sys
import tempfile

from agentcompass import run_evaluation
from agentcompass.errors import DependencyError

if importlib.util.find_spec("tomli_w") is not None:
    sys.exit(3)  # already importable: the test cannot show anything

kw = dict(
    benchmark="synthetic",
    harness="oracle",
    model="none",
    environment="memory",
    progress="none",
    results_dir=tempfile.mkdtemp(),
    benchmark_params={"n_tasks": 2},
    overrides=["benchmark._target_=tests._deps.needs_dep.NeedsDepBenchmark"],
)
try:
    run_evaluation(**kw)
except DependencyError as exc:
    print("WITHOUT FLAG:", exc)
else:
    sys.exit("expected a DependencyError without the flag")
result = run_evaluation(auto_install_dependencies=True, **kw)
print("WITH FLAG: mean_reward", result["metrics"]["mean_reward"])
import tomli_w  # noqa: E402

print("INSTALLED AT", tomli_w.__file__)
