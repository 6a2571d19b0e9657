"""Built-in recipes in real containers: pip_mirror writes /etc/pip.conf, no_network leaves only loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from tests._recipes.support import write_recipe


@pytest.mark.docker
def test_pip_mirror_and_no_network_in_docker(dirs, tmp_path, monkeypatch):
    from tests.environments.docker_support import api, require_engine

    require_engine()
    d1, _ = dirs
    write_recipe(
        d1,
        "inspect",
        {
            "hooks": {
                "before_verify": [
                    "cat /etc/pip.conf",
                    "echo NETS=$(ls /sys/class/net | tr '\\n' ' ')",
                    "grep -q mirror.example /etc/pip.conf",
                    'test "$(ls /sys/class/net)" = lo',
                ]
            }
        },
    )
    monkeypatch.setenv("PIP_INDEX_URL", "https://mirror.example/simple")
    run_id = "recipes-docker-" + tmp_path.name[-12:].replace("_", "-")
    try:
        result = run_evaluation(
            benchmark="demo",
            harness="oracle",
            model="none",
            environment="docker",
            results_dir=str(tmp_path / "results"),
            progress="none",
            run_id=run_id,
            benchmark_params={"sample_ids": ["hello-file"]},
            enabled_recipes=["pip_mirror", "no_network", "inspect"],
            recipe_dirs=[str(d1)],
        )
        assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 1.0
        attempt = Path(result["paths"]["run_dir"]) / "tasks" / "hello-file" / "sample-1" / "attempt-1"
        log = (attempt / "recipes.log").read_text()
        assert "index-url = https://mirror.example/simple" in log and "NETS=lo\n" in log
        assert json.loads((attempt / "result.json").read_text())["environment"]["provider"] == "docker"
    finally:
        client = api()
        for c in client.containers(all=True, filters={"label": f"agentcompass.run_id={run_id}"}):
            client.remove_container(c["Id"], v=True, force=True)
