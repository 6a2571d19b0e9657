"""The response cache's database and key: concurrent processes, expiry, the size cap, the CLI."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import agentcompass
from agentcompass._cli.main import main
from agentcompass.models._cache.key import DELIVERY_PARAMS, cache_key, canonical_request, first_difference
from agentcompass.models._cache.store import ResponseStore, db_path

N_CALLS = 200
WRITER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from agentcompass.models._cache.store import ResponseStore
    path, who, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    store = ResponseStore(path)
    (path.parent / f"ready-{who}").touch()
    while not (path.parent / "go").exists():  # both start writing at the same moment
        time.sleep(0.005)
    stored = 0
    for i in range(n):
        reply = {"text": f"{who}-{i}", "usage": {"input": i, "output": 1, "cost_usd": 0.001}, "tool_calls": []}
        stored += store.put(f"{who}-{i}", reply, model="m", protocol="openai-chat")
        stored += store.put(f"shared-{i}", {"text": f"shared by {who}", "tool_calls": []}, model="m", protocol="p")
        assert store.get(f"{who}-{i}")["text"] == f"{who}-{i}"
    print(json.dumps({"stored": stored}))
    """
)


def _request(**over):
    base = dict(
        protocol="openai-chat",
        endpoint="http://127.0.0.1:1/v1/chat/completions",
        model_id="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=None,
        params={"temperature": 0},
    )
    return canonical_request(**{**base, **over})


def test_two_processes_writing_200_calls_each_at_once_lose_nothing_and_corrupt_nothing(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    root = Path(agentcompass.__file__).resolve().parents[1]  # this tree's package, not another install
    env = {**os.environ, "PYTHONPATH": str(root)}
    argv = [sys.executable, str(script), str(path)]
    procs = [
        subprocess.Popen([*argv, who, str(N_CALLS)], stdout=subprocess.PIPE, text=True, env=env) for who in ("p1", "p2")
    ]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{who}").exists() for who in ("p1", "p2")) and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    stored = sum(json.loads(o)["stored"] for o in outs)
    store = ResponseStore(path)
    assert store.check() == "ok"
    stats = store.stats()
    # 200 own entries per process + 200 shared keys, each stored once (the first answer kept)
    assert stats.entries == 3 * N_CALLS and stored == 3 * N_CALLS, (stats, stored)
    for who in ("p1", "p2"):
        for i in range(N_CALLS):
            assert store.get(f"{who}-{i}")["text"] == f"{who}-{i}"
    assert {store.get(f"shared-{i}")["text"] for i in range(N_CALLS)} <= {"shared by p1", "shared by p2"}


def test_the_key_names_what_changes_the_answer_and_nothing_else() -> None:
    base = _request()
    key = cache_key(base, 1, 1)
    assert cache_key(_request(), 1, 1) == key
    assert cache_key(base, 2, 1) != key  # another sample
    assert cache_key(base, 1, 2) != key  # the same request asked again in the attempt
    assert cache_key(_request(params={"temperature": 0.5}), 1, 1) != key
    assert cache_key(_request(messages=[{"role": "user", "content": "ho"}]), 1, 1) != key
    assert cache_key(_request(model_id="m2"), 1, 1) != key
    assert cache_key(_request(protocol="openai-responses"), 1, 1) != key
    assert cache_key(_request(endpoint="http://127.0.0.1:2/v1/chat/completions"), 1, 1) != key
    assert cache_key(_request(tools=[{"type": "function", "function": {"name": "x"}}]), 1, 1) != key
    for name in DELIVERY_PARAMS:  # how the reply is delivered is not part of it
        assert cache_key(_request(params={"temperature": 0, name: 5}), 1, 1) == key
    assert first_difference(base, _request(messages=[{"role": "user", "content": "ho"}])).startswith(
        'messages[0].content (recorded "hi", now "ho")'
    )


def test_expired_entries_are_misses_and_the_size_cap_drops_the_least_recently_used(tmp_path: Path) -> None:
    store = ResponseStore(tmp_path / "c.sqlite3", expire_after_s=0.5)
    store.put("old", {"text": "x"}, model="m", protocol="p")
    assert store.get("old") == {"text": "x"}
    time.sleep(0.6)
    assert store.get("old") is None and store.stats().entries == 0
    capped = ResponseStore(tmp_path / "d.sqlite3")
    for i in range(50):
        capped.put(f"k{i}", {"text": "y" * 2000 + str(i)}, model="m", protocol="p")
    size = capped.stats().bytes
    dropped = capped.prune(max_bytes=size // 2)
    left = capped.stats()
    assert dropped > 0 and left.bytes <= size // 2 and left.entries == 50 - dropped
    assert capped.get("k49") is not None and capped.get("k0") is None  # the oldest went first


def test_cache_stats_prune_and_clear_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    data = tmp_path / "data"
    store = ResponseStore(db_path(data))
    for i in range(3):
        store.put(f"k{i}", {"text": "t", "usage": {"cost_usd": 0.25}}, model=f"model-{i % 2}", protocol="p")
    assert main(["cache", "stats", "--data-dir", str(data), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["entries"], stats["cost_usd"], stats["models"]) == (3, 0.75, {"model-0": 2, "model-1": 1})
    assert main(["cache", "prune", "--data-dir", str(data), "--older-than", "1d"]) == 0
    assert "pruned 0 cache entries" in capsys.readouterr().out
    assert main(["cache", "prune", "--data-dir", str(data), "--older-than", "soon"]) == 2
    assert "--older-than" in capsys.readouterr().err
    assert main(["cache", "clear", "--data-dir", str(data)]) == 0
    assert "cleared 3 cache entries" in capsys.readouterr().out
    assert main(["cache", "stats", "--data-dir", str(data)]) == 0
    assert "entries 0" in capsys.readouterr().out


ROUNDS, THREADS = 300, 4


def _first_call(store: ResponseStore, i: int, barrier: threading.Barrier, failures: list[str]) -> None:
    barrier.wait()
    try:
        if store.read_only:
            store.get("k0")
        else:
            assert store.put(f"k{i}", {"text": str(i)}, model="m", protocol="p")
            assert store.get(f"k{i}") == {"text": str(i)}
    except Exception as exc:
        failures.append(f"{store.path.parent.name} thread {i}: {type(exc).__name__}: {exc}")


def test_many_threads_opening_a_new_database_at_once_never_fail(tmp_path: Path) -> None:
    """Each round a new database and THREADS threads whose first call starts at the same moment: writers
    through one shared store and their own stores, and a read-only store; none may see "database is locked"."""
    failures: list[str] = []
    for r in range(ROUNDS):
        path = tmp_path / f"r{r}" / "c.sqlite3"
        shared = ResponseStore(path)
        stores = [shared, ResponseStore(path), shared, ResponseStore(path, read_only=True)][:THREADS]
        barrier = threading.Barrier(THREADS)
        threads = [threading.Thread(target=_first_call, args=(s, i, barrier, failures)) for i, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failures:
            break
    assert failures == []
    assert ResponseStore(tmp_path / "r0" / "c.sqlite3").stats().entries == THREADS - 1


def test_a_new_database_another_program_is_writing_is_waited_for_not_failed(tmp_path: Path) -> None:
    """The deterministic form of the race above: a new database file another connection holds a write
    transaction on (SQLite answers the WAL switch "database is locked" at once, without its busy timeout)."""
    path = tmp_path / "c.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE other (x)")
    outcome: dict[str, object] = {}
    started = threading.Event()

    def read() -> None:
        started.set()
        try:
            outcome["reply"] = ResponseStore(path).get("k")
        except Exception as exc:
            outcome["error"] = f"{type(exc).__name__}: {exc}"

    thread = threading.Thread(target=read)
    thread.start()
    started.wait()
    time.sleep(1.0)  # the store meets the open write transaction
    assert "error" not in outcome, outcome
    other.execute("COMMIT")
    other.close()
    thread.join()
    assert outcome == {"reply": None}
    store = ResponseStore(path)
    assert store.put("k", {"text": "x"}, model="m", protocol="p") and store.get("k") == {"text": "x"}
    assert store._rw().execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_read_only_store_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data" / "c.sqlite3"
    reader = ResponseStore(path, read_only=True, expire_after_s=3600)
    assert reader.get("k") is None and not path.parent.exists()  # no database made
    writer = ResponseStore(path)
    writer.put("k", {"text": "x"}, model="m", protocol="p")
    writer.put("old", {"text": "y"}, model="m", protocol="p")
    writer._rw().execute("UPDATE responses SET created = created - 7200 WHERE key = 'old'")
    version = writer._rw().execute("PRAGMA data_version").fetchone()[0]
    assert reader.get("k") == {"text": "x"} and reader.get("old") is None  # expired: a miss, left in place
    with pytest.raises(PermissionError, match="read-only"):
        reader.put("k2", {"text": "z"}, model="m", protocol="p")
    assert writer._rw().execute("PRAGMA data_version").fetchone()[0] == version  # nobody else wrote
    stats = writer.stats()
    assert (stats.entries, stats.hits) == (2, 0)
