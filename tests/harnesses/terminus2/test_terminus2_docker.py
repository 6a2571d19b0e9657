"""terminus2 in a real Docker container built FROM agentcompass/base:bookworm (``scripts/ensure_docker.sh``)."""

from __future__ import annotations

import asyncio
import json

import pytest
import yaml
from t2_support import Dispatcher, drive, lead, reply, tail, user_text

from agentcompass._config.registry import build, conf_dir
from agentcompass.errors import DependencyError
from agentcompass.interfaces import ComponentContext
from tests.environments.docker_support import TEST_LABELS, remove_session_containers, require_engine

pytestmark = pytest.mark.docker
BROKEN = '{"analysis": "oops", "plan": forgot quotes, "commands": []}'


@pytest.fixture
def docker_provider(tmp_path):
    """The ``docker`` environment as configured in conf/environment/docker.yaml (engine started when needed)."""
    require_engine()
    cfg = yaml.safe_load((conf_dir() / "environment" / "docker.yaml").read_text())
    provider = build("environment", cfg, ComponentContext(data_dir=tmp_path / "data"))
    yield provider
    asyncio.run(provider.aclose())
    remove_session_containers()


def test_solves_the_task_in_a_container_with_double_confirmation(docker_provider, tmp_path):
    replies = [
        reply(("ls -la /app\n", 0.5), "cd /app && echo 'hi from terminus' > greeting.txt\n"),
        reply("cat /app/greeting.txt\n", task_complete=True),
        reply(task_complete=True),
    ]
    labels = dict(TEST_LABELS)
    out = asyncio.run(
        drive(
            docker_provider,
            replies,
            tmp_path,
            labels=labels,
            timeout=300,
            harness={"record_terminal": True},
            read=("/logs/agent/trajectory.json", "/logs/agent/terminus_2.pane"),
        )
    )
    assert out.error is None, out.error
    assert out.result.exit_status == "completed" and out.result.n_turns == 3
    first = user_text(out.requests[0])
    screen = first.split(lead("current_screen"), 1)[1]
    lines = [line for line in screen.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].endswith("/app#")  # asciinema start-up, then clear: the prompt only
    assert "seed.txt" in user_text(out.requests[1])  # COPY files/ /app/
    assert user_text(out.requests[2]).endswith(tail("confirm"))
    assert out.grade.error is None and out.grade.reward == 1.0
    assert json.loads(out.files["/logs/agent/trajectory.json"])["schema_version"] == "ATIF-v1.2"
    assert b"hi from terminus" in out.files["/logs/agent/terminus_2.pane"]


def test_missing_tmux_in_the_image_is_a_clear_error(docker_provider, tmp_path):
    labels = dict(TEST_LABELS)
    out = asyncio.run(
        drive(
            docker_provider,
            [reply(task_complete=True)],
            tmp_path,
            task_id="no-tmux",
            labels=labels,
            grade=False,
            timeout=300,
        )
    )
    assert isinstance(out.error, DependencyError)
    message = str(out.error)
    assert "tmux" in message and "not installed" in message
    assert "image" in message and "auto_install_dependencies" in message
    assert out.requests == []  # no model call was made


@pytest.mark.slow
def test_auto_install_puts_tmux_into_the_container(docker_provider, tmp_path):
    labels = dict(TEST_LABELS)
    replies = [reply("tmux -V > /app/tmux-version.txt\n"), reply(task_complete=True), reply(task_complete=True)]
    out = asyncio.run(
        drive(
            docker_provider,
            replies,
            tmp_path,
            task_id="no-tmux",
            labels=labels,
            grade=False,
            timeout=600,
            auto_install=True,
            read=("/app/tmux-version.txt",),
        )
    )
    if isinstance(out.error, DependencyError) and any(
        s in str(out.error) for s in ("resolve", "Failed to fetch", "Unable to locate", "unreachable")
    ):
        pytest.skip(f"no package repository reachable from the container: {out.error}")
    assert out.error is None, out.error
    assert out.result.exit_status == "completed"
    assert out.files["/app/tmux-version.txt"].startswith(b"tmux ")


def test_large_output_is_seen_before_the_summary_and_a_pending_completion_survives(docker_provider, tmp_path):
    """A 60 KB output (head and tail kept) reaches the model; it then fills the small context, so the next
    episode summarizes; the completion asked before the summary survives it and a parse error."""
    script = Dispatcher(
        [
            reply(("seq -f 'line %05g of the long listing' 1 1500\n", 1.0)),
            reply("echo 'hi from terminus' > /app/greeting.txt\n", task_complete=True),
            BROKEN,
            reply(task_complete=True),
            reply("echo never\n"),
        ]
    )
    out = asyncio.run(
        drive(
            docker_provider,
            script,
            tmp_path,
            labels=dict(TEST_LABELS),
            timeout=300,
            harness={"context_limit": 6000, "proactive_summarization_threshold": 3000},
        )
    )
    assert out.error is None, out.error
    assert script.kinds == ["main", "main", "summary", "questions", "answers", "main", "main"]
    seen = user_text(out.requests[1])
    assert seen.startswith(lead("new_output")) and "line 00001 of" in seen and "line 01500 of" in seen
    assert len(seen.encode()) < 10_500  # Harbor's 10,000-byte head + tail
    summary = out.requests[2]["body"]["messages"]
    assert "line 01500 of" in summary[2]["content"]  # summarized after it was seen
    assert user_text(out.requests[5]).startswith(lead("handoff"))  # the handoff replaced the prompt
    assert user_text(out.requests[6]).startswith(lead("parse_error"))
    assert out.result.exit_status == "completed" and out.result.n_turns == 4  # still pending: true ends it
    assert out.result.info["summarization_count"] == 1 and out.result.n_format_errors == 1
    assert out.grade.error is None and out.grade.reward == 1.0
