"""Every route by which a secret can enter a request leaves it out of every file of the run directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentcompass import run_evaluation
from agentcompass._config.redact import REDACTED, redact, scrub

SECRETS = {
    "url": "pw-in-url-4821",
    "key": "sk-plainkey-4821x",
    "header": "hdr-secret-4821",
    "env_name": "envkey-4821",
    "dsn": "dbpass-4821",
    "query": "qtoken-4821",
}


def leaks(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in root.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for what, value in SECRETS.items():
                if value in text:
                    found.setdefault(what, []).append(path.name)
    return found


def _params():
    return {
        "model_base_url": f"http://alice:{SECRETS['url']}@127.0.0.1:9/v1?api_key={SECRETS['query']}",
        "model_api_key": SECRETS["key"],
        "model_params": {"extra_headers": {"X-Auth": SECRETS["header"], "Content-Type": "application/json"}},
        "environment_params": {
            "env": {
                "OPENAI_KEY": SECRETS["env_name"],
                "PLAIN": "visible",
                "DATABASE_URL": f"postgres://u:{SECRETS['dsn']}@db/x",
            }
        },
    }


def test_sdk_routes_reach_no_file(tmp_path):
    result = run_evaluation(
        benchmark="demo",
        harness="nop",
        model="some-model",
        results_dir=tmp_path / "r",
        progress="none",
        benchmark_params={"limit": 2},
        **_params(),
    )
    assert result["metrics"]["n_tasks"] == 2
    assert leaks(tmp_path / "r") == {}
    cfg = (Path(result["paths"]["config"])).read_text()
    assert "PLAIN: visible" in cfg and "Content-Type: application/json" in cfg  # only secrets are hidden
    assert REDACTED in json.dumps(result["metadata"]["model"])


def test_cli_routes_reach_no_file_or_output(tmp_path):
    p = _params()
    argv = [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "demo",
        "nop",
        "some-model",
        "--results-dir",
        str(tmp_path / "r"),
        "--progress",
        "plain",
        "--benchmark-params",
        '{"limit": 1}',
        "--model-base-url",
        p["model_base_url"],
        "--model-api-key",
        p["model_api_key"],
        "--model-params",
        json.dumps(p["model_params"]),
        "--env-params",
        json.dumps(p["environment_params"]),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ}, check=False)
    assert proc.returncode == 0, proc.stderr
    assert leaks(tmp_path / "r") == {}
    assert not [v for v in SECRETS.values() if v in proc.stdout + proc.stderr]


def test_non_string_api_key_is_not_echoed(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model:\n  api_key: 48213377\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentcompass",
            "run",
            "demo",
            "nop",
            "m",
            "--config",
            str(cfg),
            "--results-dir",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and "48213377" not in proc.stderr and "api_key" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_redact_rules():
    tree = {
        "headers": {"Authorization": "Bearer abc12345", "Accept": "text/plain", "X-Custom": "c-123456"},
        "env": {"PRIVATE_KEY": "pk-123456", "ACCESS_KEY": "ak-123456", "AUTHOR_NAME": "Ada", "PATH": "/bin"},
        "url": "https://bob:pa55word@host/v1?token=t0k3n1234&x=1",
        "note": "key sk-abcdefghijklmnop here",
    }
    out = redact(tree)
    assert out["headers"] == {"Authorization": REDACTED, "Accept": "text/plain", "X-Custom": REDACTED}
    assert out["env"] == {"PRIVATE_KEY": REDACTED, "ACCESS_KEY": REDACTED, "AUTHOR_NAME": "Ada", "PATH": "/bin"}
    assert out["url"] == f"https://{REDACTED}@host/v1?token={REDACTED}&x=1"
    assert out["note"] == f"key {REDACTED} here"
    assert scrub("ghp_0123456789abcdefABCD and AKIA0123456789ABCDEF") == f"{REDACTED} and {REDACTED}"


def test_numbers_flags_and_token_counts_are_not_secrets(tmp_path):
    """max_tokens, session names and booleans are configuration, not secrets: never redacted or scrubbed."""
    from agentcompass._config.redact import register_config_secrets

    tree = {
        "params": {"max_tokens": 4000, "max_completion_tokens": 512},
        "tmux_session": "agent-1",
        "flag": True,
        "GITHUB_TOKEN": "ghtok-value-1234",
        "api_key": 987654321,
    }
    register_config_secrets(tree)
    out = redact(tree)
    assert out["params"] == {"max_tokens": 4000, "max_completion_tokens": 512}
    assert out["tmux_session"] == "agent-1" and out["flag"] is True
    assert out["GITHUB_TOKEN"] == REDACTED
    assert (
        scrub("use --auto-install-dependencies; limit 4000; True; 987654321")
        == "use --auto-install-dependencies; limit 4000; True; 987654321"
    )
    assert scrub("the value ghtok-value-1234 leaked") == f"the value {REDACTED} leaked"
