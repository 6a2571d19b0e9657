import pytest

pytest_plugins = (
    "tests.tau2_fixtures",  # tau2_root, tau2_reference: the τ²-bench snapshot and reference
    "tests.record_schema",  # every result.json, results row and summary.json written fits `agentcompass schema`
)


@pytest.fixture(autouse=True)
def _reset_probe_instances():
    from tests.helpers import ProbeHarness

    ProbeHarness.instances.clear()
    ProbeHarness.global_running = ProbeHarness.global_max = 0
    yield
    ProbeHarness.instances.clear()


@pytest.fixture
def results_dir(tmp_path):
    return tmp_path / "results"
