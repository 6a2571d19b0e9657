"""τ²-bench airline and retail environments against the reference (tau2 1.0.1 in its own venv): data-model and tool
schemas, and every task's gold actions plus perturbed calls replayed on both sides (outputs byte-equal, DB hashes
equal)."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentcompass.benchmarks.tau2._models import dict_hash, load_source
from agentcompass.benchmarks.tau2._source import Tau2SourceError
from agentcompass.benchmarks.tau2.domains import domain_names, load_domain
from agentcompass.benchmarks.tau2.domains._base import FreshDB
from tests.benchmarks.tau2.domain_helpers import (
    DOMAINS,
    FUNCTION_CALLS,
    REPLAY_SCRIPT,
    SCHEMAS_SCRIPT,
    function_calls_ours,
    gold_calls,
    normalize,
    perturbed_calls,
    replay_ours,
)


@pytest.fixture(scope="module")
def factories(tau2_root):
    return {name: load_domain(tau2_root, name) for name in DOMAINS}


@pytest.fixture(scope="module")
def reference_schemas(tau2_reference):
    return tau2_reference(SCHEMAS_SCRIPT, {"domains": list(DOMAINS), "function_calls": FUNCTION_CALLS})


@pytest.mark.parametrize("domain", DOMAINS)
def test_model_schemas_equal_the_reference(domain, factories, reference_schemas):
    ours = {name: cls.model_json_schema() for name, cls in factories[domain].models.models().items()}
    theirs = reference_schemas[domain]["models"]
    assert list(ours) == list(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_db_is_built_on_first_use_and_its_own(domain, factories):
    """An environment's DB is built when first used; the hash of one never used is a fresh DB's (checked against the
    reference's in the next test); a write stays in its environment."""
    factory = factories[domain]
    unused, used, written = factory(), factory(), factory()
    assert isinstance(unused.tools._db, FreshDB)
    built = used.tools.db
    assert not isinstance(used.tools._db, FreshDB) and used.tools.db is built
    assert unused.get_db_hash() == used.get_db_hash() == dict_hash(built.model_dump())
    assert isinstance(unused.tools._db, FreshDB)  # hashed without being built
    user = next(iter(written.tools.db.users.values()))
    first, lists = user.name.first_name, [v for v in user.__dict__.values() if isinstance(v, list)]
    user.name.first_name = first + "X"
    lists[0].append(lists[0][0])  # a list of the DB: the file's data, parsed once, is not in any DB
    assert written.get_db_hash() != unused.get_db_hash()
    again = factory()
    user = next(iter(again.tools.db.users.values()))
    assert user.name.first_name == first and len(lists[0]) == len(user.__dict__[_first_list(user)]) + 1
    assert again.get_db_hash() == unused.get_db_hash() == used.get_db_hash()


def _first_list(model):
    return next(k for k, v in model.__dict__.items() if isinstance(v, list))


@pytest.mark.parametrize("domain", DOMAINS)
def test_tool_schemas_types_and_policy_equal_the_reference(domain, factories, reference_schemas):
    env = factories[domain]()
    ours = [
        {"schema": spec.openai_schema, "type": spec.tool_type.value, "mutates": spec.mutates_state}
        for spec in env.tools.specs.values()
    ]
    assert ours == reference_schemas[domain]["tools"]
    assert env.tool_schemas() == [t["schema"] for t in reference_schemas[domain]["tools"]]
    assert env.policy == reference_schemas[domain]["policy"]
    assert env.get_db_hash() == reference_schemas[domain]["db_hash"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_env_function_calls_and_assertions_equal_the_reference(domain, factories, reference_schemas):
    ours = function_calls_ours(factories[domain](), FUNCTION_CALLS[domain])
    assert [[normalize(str(a)), b] for a, b in ours] == [
        [normalize(str(a)), b] for a, b in reference_schemas[domain]["function_calls"]
    ]


@pytest.fixture(scope="module", params=DOMAINS)
def replay(request, factories, tau2_reference):
    domain = request.param
    tasks = []
    for task in factories[domain].tasks():
        gold = gold_calls(task)
        tasks.append({"id": task["id"], "initial_state": task.get("initial_state"), "gold": gold})
        tasks[-1]["perturbed"] = perturbed_calls(gold)
    with ThreadPoolExecutor(1) as pool:  # the reference runs in its own process meanwhile
        reference = pool.submit(tau2_reference, REPLAY_SCRIPT, {"domain": domain, "tasks": tasks})
        ours = [replay_ours(factories[domain], task) for task in tasks]
        theirs = reference.result()
    return domain, tasks, ours, theirs


@pytest.mark.slow
def test_every_task_replays_as_the_reference(replay):
    domain, tasks, ours, theirs = replay
    assert len(ours) == len(theirs) == len(tasks) > 0
    for task, mine, ref in zip(tasks, ours, theirs, strict=True):
        for kind in ("gold", "perturbed"):
            for call, (content, error), (ref_content, ref_error) in zip(task[kind], mine[kind], ref[kind], strict=True):
                assert (normalize(content), error) == (normalize(ref_content), ref_error), (domain, task["id"], call)
        assert mine["hashes"] == ref["hashes"], (domain, task["id"])
    calls = sum(len(t["gold"]) + len(t["perturbed"]) for t in tasks)
    errors = sum(error for mine in ours for _, error in mine["gold"] + mine["perturbed"])
    writes = sum(mine["hashes"][3] is not None for mine in ours)
    print(f"{domain}: {len(tasks)} tasks, {calls} calls ({errors} errors), {writes} tasks change the DB")
    assert errors > 0 and writes > 0  # the error paths and the writes were exercised


def test_environments_share_no_state(factories):
    factory = factories["retail"]
    first, second = factory(), factory()
    before = second.get_db_hash()
    user_id = next(iter(first.tools.db.users))
    content, error = first.get_response(
        {"name": "modify_user_address", "arguments": {"user_id": user_id, **dict.fromkeys(ADDRESS, "x")}}
    )
    assert not error, content
    assert first.get_db_hash() != before
    assert second.get_db_hash() == before == factory().get_db_hash()


ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


def test_domain_names_and_unknown_domain(tau2_root):
    assert {"airline", "retail"} <= set(domain_names())
    with pytest.raises(Tau2SourceError, match="unknown τ²-bench domain 'nope'"):
        load_domain(tau2_root, "nope")


def test_unsupported_source_construct_is_named(tmp_path):
    module = tmp_path / "src" / "tau2" / "domains" / "fake" / "data_model.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        textwrap.dedent(
            """
            from pydantic import BaseModel, Field
            import datetime

            class Ok(BaseModel):
                a: int = Field(description="x")

            class Bad(BaseModel):
                when: str = Field(default=str(1))

            class Worse(BaseModel):
                at: int if True else str
            """
        )
    )
    mod = load_source(tmp_path).module("tau2.domains.fake.data_model")
    assert mod.get("Ok").model_json_schema()["properties"]["a"]["description"] == "x"
    with pytest.raises(Tau2SourceError, match=r"data_model.py:9: ") as bad:
        mod.get("Bad")
    with pytest.raises(Tau2SourceError, match=r"data_model.py:12: ") as worse:
        mod.get("Worse")
    assert "str(1)" in str(bad.value) and "int if True else str" in str(worse.value), (bad.value, worse.value)


def test_set_state_replays_a_transcript_of_agentcompass_messages(factories):
    from agentcompass.conversation import Message, ToolUse

    factory = factories["retail"]
    direct = factory()
    user_id = next(iter(direct.tools.db.users))
    call = ToolUse(id="c1", name="modify_user_address", arguments={"user_id": user_id, **dict.fromkeys(ADDRESS, "y")})
    content, error = direct.get_response(call)
    assert not error
    read = ToolUse(id="c2", name="get_user_details", arguments={"user_id": user_id})
    history = [
        Message(role="system", content="policy"),
        Message(role="assistant", tool_calls=[call, read]),
        Message(role="tool", tool_call_id="c1", content=content),
        Message(role="tool", tool_call_id="c2", content="not replayed: a read"),
    ]
    replayed = factory()
    replayed.set_state(None, None, history)
    assert replayed.get_db_hash() == direct.get_db_hash() != factory().get_db_hash()
    stale = [history[1], Message(role="tool", tool_call_id="c1", content="other"), history[3]]
    with pytest.raises(ValueError, match="Tool call"):
        factory().set_state(None, None, stale)
