"""The telecom domain against the reference (tau2 1.0.1, one subprocess for the whole batch): every task of
tasks_small.json replayed (initial state, gold actions of the assistant and the user, env assertions) and the
perturbed calls of :mod:`telecom_scenarios`, compared output by output (content and error flag), with both DB
hashes and every assertion's result; the tool schemas (agent's and user's), the tool types and the policy."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from agentcompass.benchmarks.tau2.domains import load_domain
from tests.benchmarks.tau2.telecom_scenarios import perturbed_scenarios, task_scenarios

pytestmark = pytest.mark.slow

REFERENCE_SCRIPT = r"""
import json, sys, uuid

from tau2.data_model.message import ToolCall
from tau2.data_model.tasks import EnvAssertion, EnvFunctionCall, InitializationData
from tau2.domains.telecom.environment import get_environment
from tau2.domains.telecom.user_data_model import PerformanceLevel
from tau2.domains.telecom.user_tools import TelecomUserTools


def counter_uuid():
    state = [0]

    def uuid4():
        state[0] += 1
        return uuid.UUID(int=state[0])

    return uuid4


def run(sc):
    uuid.uuid4 = counter_uuid()
    # each scenario as in a fresh process: the reference shares one default VPN object per process (docs/tau2.md)
    TelecomUserTools.default_vpn_details = TelecomUserTools.default_vpn_details.model_copy(deep=True)
    TelecomUserTools.default_vpn_details.server_performance = PerformanceLevel.EXCELLENT
    env = get_environment()
    res = {"init": [], "outputs": [], "assertions": []}
    try:
        if sc["init_data"]:
            env.set_state(InitializationData.model_validate(sc["init_data"]), None, [])
        for action in sc["init_actions"]:
            res["init"].append(repr(env.run_env_function_call(EnvFunctionCall.model_validate(action))))
        env.sync_tools()
    except Exception as e:
        res["init"].append(f"raised {type(e).__name__}: {e}")
        return res
    res["init_hashes"] = [env.get_db_hash(), env.get_user_db_hash()]
    for i, call in enumerate(sc["calls"]):
        msg = env.get_response(ToolCall(id=str(i), requestor=call["requestor"], name=call["name"],
                                        arguments=call["arguments"]))
        res["outputs"].append([msg.content, msg.error])
    res["hashes"] = [env.get_db_hash(), env.get_user_db_hash()]
    for a in sc["assertions"]:
        try:
            res["assertions"].append(env.run_env_assertion(EnvAssertion.model_validate(a), raise_assertion_error=False))
        except Exception as e:
            res["assertions"].append(f"raised {type(e).__name__}: {e}")
    return res


payload = json.load(sys.stdin)
env = get_environment()
kits = {"assistant": env.tools, "user": env.user_tools}
print(json.dumps({
    "scenarios": [run(sc) for sc in payload],
    "schemas": {k: [t.openai_schema for t in kit.get_tools().values()] for k, kit in kits.items()},
    "types": {k: {n: [kit.tool_type(n).value, kit.tool_mutates_state(n)] for n in kit.get_tools()}
              for k, kit in kits.items()},
    "policy": env.get_policy(),
    "domain": env.get_domain_name(),
}))
"""


def _counter_uuid() -> Any:
    state = [0]

    def uuid4() -> uuid.UUID:
        state[0] += 1
        return uuid.UUID(int=state[0])

    return uuid4


def _run(factory: Any, sc: dict[str, Any]) -> dict[str, Any]:
    env = factory()
    res: dict[str, Any] = {"init": [], "outputs": [], "assertions": []}
    try:
        if sc["init_data"]:
            env.set_state(sc["init_data"], None, [])
        for action in sc["init_actions"]:
            res["init"].append(repr(env.run_env_function_call(action)))
        env.sync_tools()
    except Exception as e:
        res["init"].append(f"raised {type(e).__name__}: {e}")
        return res
    res["init_hashes"] = [env.get_db_hash(), env.get_user_db_hash()]
    res["outputs"] = [list(env.get_response(call)) for call in sc["calls"]]
    res["hashes"] = [env.get_db_hash(), env.get_user_db_hash()]
    for a in sc["assertions"]:
        try:
            res["assertions"].append(env.run_env_assertion(a, raise_assertion_error=False))
        except Exception as e:
            res["assertions"].append(f"raised {type(e).__name__}: {e}")
    return res


@pytest.fixture(scope="module")
def scenarios(tau2_root) -> dict[str, list[dict[str, Any]]]:
    return {"tasks": task_scenarios(tau2_root), "perturbed": perturbed_scenarios()}


@pytest.fixture(scope="module")
def reference(tau2_reference, scenarios) -> dict[str, Any]:
    out = tau2_reference(REFERENCE_SCRIPT, scenarios["tasks"] + scenarios["perturbed"])
    n = len(scenarios["tasks"])
    return {**out, "tasks": out["scenarios"][:n], "perturbed": out["scenarios"][n:]}


@pytest.fixture(scope="module")
def factory(tau2_root) -> Any:
    return load_domain(tau2_root, "telecom")


@pytest.fixture(scope="module")
def ours(factory, scenarios) -> dict[str, list[dict[str, Any]]]:
    """Our results, in the reference's order (each scenario's phone with a VPN object of its own)."""
    results: dict[str, list[dict[str, Any]]] = {}
    with pytest.MonkeyPatch.context() as mp:
        for kind in ("tasks", "perturbed"):
            results[kind] = []
            for sc in scenarios[kind]:
                mp.setattr(uuid, "uuid4", _counter_uuid())
                results[kind].append(_run(factory, sc))
    return results


def _mismatches(ours: list[dict], theirs: list[dict]) -> list[str]:
    out = []
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        for key in sorted(set(a) | set(b)):
            if key == "outputs" and a.get(key) != b.get(key):
                for j, (x, y) in enumerate(zip(a[key], b[key], strict=True)):
                    if x != y:
                        out.append(f"scenario {i} call {j}: ours {x!r} reference {y!r}")
            elif a.get(key) != b.get(key):
                out.append(f"scenario {i} {key}: ours {a.get(key)!r} reference {b.get(key)!r}")
    return out


def test_every_small_task_replays_as_the_reference(ours, reference, scenarios):
    assert len(scenarios["tasks"]) == 20
    assert _mismatches(ours["tasks"], reference["tasks"]) == []
    # the gold replay leaves every task's env assertions satisfied, on both sides
    assert all(r["assertions"] and all(v is True for v in r["assertions"]) for r in reference["tasks"])


def test_perturbed_calls_agree_with_the_reference(ours, reference):
    assert _mismatches(ours["perturbed"], reference["perturbed"]) == []
    errors = [o for r in reference["perturbed"] for o in r["outputs"] if o[1]]
    assert len(errors) >= 25  # the error paths are exercised, not only the happy ones


def test_tool_schemas_equal_the_reference(factory, reference):
    assert factory.tool_schemas() == reference["schemas"]["assistant"]
    assert factory.user_tool_schemas() == reference["schemas"]["user"]
    assert (len(factory.tool_schemas()), len(factory.user_tool_schemas())) == (13, 30)


def test_tool_types_equal_the_reference(factory, reference):
    env = factory()
    for side, kit in (("assistant", env.tools), ("user", env.user_tools)):
        ours = {n: [kit.tool_type(n).value, kit.tool_mutates_state(n)] for n in kit.tools}
        assert ours == reference["types"][side]


def test_policy_equals_the_reference(factory, reference):
    env = factory()
    assert env.policy == reference["policy"]
    assert env.domain_name == reference["domain"]
