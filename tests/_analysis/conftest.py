"""A scripted judge server (real HTTP on 127.0.0.1) that answers by the task id it is shown."""

from __future__ import annotations

import pytest

from tests._analysis.support import JUDGE_KEY, judge_reply


@pytest.fixture
def judge_server():
    from agentcompass.testing.scripted_server import ScriptedModelServer

    with ScriptedModelServer(replies=judge_reply, api_key=JUDGE_KEY) as srv:
        yield srv
