"""The response cache: one SQLite file under ``data_dir`` (``<data_dir>/model-cache/responses.sqlite3``).

Why SQLite: it is in the standard library, keeps everything in one file, and its locking makes one database
safe for many threads and processes at once (every attempt of a run, several runs, the worker processes of a
Ray node): WAL mode lets readers go on while one writer commits, and writers queue on the file lock
(``busy_timeout``) instead of failing. A write is one short transaction, so an interrupted process loses at most
the entry it was writing and never corrupts the others. ``synchronous=NORMAL`` (WAL's usual setting) survives a
process crash; a power loss may drop the last entries, which for a cache only means paying for them again.
WAL needs memory shared between the processes, so the file must sit on a local disk: on a Ray cluster each
node has its own cache (its own ``data_dir``), which is what the default per-user data dir gives.

The one step SQLite does not queue is the switch of a new file into WAL mode: when two connections switch at
once, or one switches while another writes the new file, SQLite answers "database is locked" at once instead
of waiting (waiting could deadlock). So a new database is made ready once, before any other connection uses
it: one thread of a process, under a lock file that the processes share, switches it to WAL and creates the
schema; every other connection only opens a database that is ready. A ``read_only`` store writes nothing: it
neither creates the file nor counts hits.

An entry holds the reply (text, finish reason, tool calls, usage as first recorded, the raw JSON body),
zlib-compressed JSON. ``expire_after`` makes older entries misses; ``max_bytes`` bounds the live data: past it
the least recently used entries are dropped (``prune``).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import StoredReply

SCHEMA_VERSION = 1
DB_NAME = "responses.sqlite3"
BUSY_TIMEOUT_MS = 60_000
TOUCH_AFTER_S = 60.0  # a hit refreshes ``accessed`` (the LRU order) at most this often per entry
PRUNE_EVERY = 64  # writes of one process between two checks of the size cap
_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    protocol TEXT NOT NULL,
    created REAL NOT NULL,
    accessed REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    size INTEGER NOT NULL,
    body BLOB NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS responses_accessed ON responses (accessed)",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_log = logging.getLogger(__name__)
_READY_LOCK = threading.Lock()
_READY: set[tuple[int, str]] = set()  # (process, database) made ready in this process


def db_path(data_dir: Path) -> Path:
    return Path(data_dir) / "model-cache" / DB_NAME


@dataclass
class Stats:
    path: str
    entries: int
    bytes: int
    file_bytes: int
    hits: int
    cost_usd: float  # what the stored replies cost when first made (known prices only)
    unknown_cost: int  # entries whose price was unknown
    oldest: float | None
    newest: float | None
    models: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        return dict(vars(self))


class ResponseStore:
    """One cache database; safe to share between threads (a connection per thread) and processes. A
    ``read_only`` store never writes the database (no hits counted, expired entries left in place)."""

    def __init__(
        self,
        path: Path,
        *,
        expire_after_s: float | None = None,
        max_bytes: int | None = None,
        read_only: bool = False,
    ) -> None:
        self.path, self.expire_after_s, self.max_bytes = Path(path), expire_after_s, max_bytes
        self.read_only = read_only
        self._local = threading.local()
        self._writes = 0

    # ------------------------------------------------------------------ connection
    def _db(self) -> sqlite3.Connection | None:
        """This thread's connection (None: a read-only store whose database does not exist yet)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            return conn
        if not _ready(self.path, create=not self.read_only):
            return None
        conn = _connect(self.path)
        self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _rw(self) -> sqlite3.Connection:
        if self.read_only:
            raise PermissionError(f"the response cache {self.path} was opened read-only")
        conn = self._db()
        assert conn is not None  # a writable store creates its database
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # ------------------------------------------------------------------ entries
    def get(self, key: str) -> StoredReply | None:
        """The stored reply of ``key`` (None: absent or expired); a hit is counted (not by a read-only store)."""
        db, now = self._db(), time.time()
        if db is None:
            return None
        row = db.execute("SELECT created, accessed, body FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        created, accessed, body = row
        if self.expire_after_s is not None and created < now - self.expire_after_s:
            if not self.read_only:
                with _transaction(db):
                    db.execute("DELETE FROM responses WHERE key = ? AND created = ?", (key, created))
            return None
        if not self.read_only:
            with _transaction(db):
                if now - accessed >= TOUCH_AFTER_S:
                    db.execute("UPDATE responses SET hits = hits + 1, accessed = ? WHERE key = ?", (now, key))
                else:
                    db.execute("UPDATE responses SET hits = hits + 1 WHERE key = ?", (key,))
        reply: StoredReply = json.loads(zlib.decompress(body))
        return reply

    def put(self, key: str, reply: StoredReply, *, model: str, protocol: str) -> bool:
        """Store ``reply`` under ``key`` unless an entry is there already (the first answer is kept); True when
        stored."""
        body = zlib.compress(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), 6)
        cost = (reply.get("usage") or {}).get("cost_usd")
        db, now = self._rw(), time.time()
        with _transaction(db):
            cur = db.execute(
                "INSERT INTO responses (key, model, protocol, created, accessed, cost_usd, size, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                (key, model, protocol, now, now, cost, len(body), body),
            )
        self._writes += 1
        if self.max_bytes is not None and self._writes % PRUNE_EVERY == 1:
            self.prune(max_bytes=self.max_bytes)
        return cur.rowcount == 1

    # ------------------------------------------------------------------ maintenance
    def prune(self, *, max_bytes: int | None = None, older_than_s: float | None = None) -> int:
        """Drop entries created more than ``older_than_s`` ago, then the least recently used ones until the live
        data is at most 90 % of ``max_bytes``; returns how many were dropped."""
        db, dropped = self._rw(), 0
        if older_than_s is not None:
            with _transaction(db):
                dropped += db.execute("DELETE FROM responses WHERE created < ?", (time.time() - older_than_s,)).rowcount
        if max_bytes is not None:
            total = db.execute("SELECT COALESCE(SUM(size), 0) FROM responses").fetchone()[0]
            if total > max_bytes:
                target, freed = total - int(max_bytes * 0.9), 0
                with _transaction(db):
                    for key, size in db.execute("SELECT key, size FROM responses ORDER BY accessed").fetchall():
                        if freed >= target:
                            break
                        db.execute("DELETE FROM responses WHERE key = ?", (key,))
                        freed, dropped = freed + size, dropped + 1
        return dropped

    def clear(self) -> int:
        db = self._rw()
        with _transaction(db):
            n = db.execute("DELETE FROM responses").rowcount
        db.execute("VACUUM")
        return n

    def stats(self) -> Stats:
        db = self._rw()
        n, size, hits, cost, oldest, newest = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(hits), 0), SUM(cost_usd), MIN(created), "
            "MAX(created) FROM responses"
        ).fetchone()
        unknown = db.execute("SELECT COUNT(*) FROM responses WHERE cost_usd IS NULL").fetchone()[0]
        models = dict(db.execute("SELECT model, COUNT(*) FROM responses GROUP BY model ORDER BY model").fetchall())
        files = [self.path, self.path.with_name(self.path.name + "-wal")]
        file_bytes = sum(p.stat().st_size for p in files if p.exists())
        return Stats(str(self.path), n, size, file_bytes, hits, round(cost or 0.0, 8), unknown, oldest, newest, models)

    def check(self) -> str:
        """SQLite's own integrity check (``ok`` when the file is sound)."""
        return str(self._rw().execute("PRAGMA integrity_check").fetchone()[0])


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def _ready(path: Path, *, create: bool) -> bool:
    """Make the database ready once per process (WAL mode, the schema) before any connection of this process
    uses it; False when it is not there and ``create`` is not wanted. The processes sharing the file take turns
    under ``<db>.lock``; a reader only checks that the schema is there (it waits on the lock like any read)."""
    mark = (os.getpid(), str(path))
    with _READY_LOCK:
        if mark in _READY and path.exists():
            return True
        if not create:
            if not path.exists() or not _schema_present(path):
                return False
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path.with_name(path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
                conn = _connect(path)
                try:
                    _use_wal(conn, path)
                    if not _has_schema(conn):
                        with _transaction(conn):
                            for statement in _SCHEMA:
                                conn.execute(statement)
                            conn.execute(
                                "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                            )
                finally:
                    conn.close()
        _READY.add(mark)
        return True


def _use_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch to WAL mode. SQLite does not call the busy handler for this switch when another connection is
    writing a file not yet in WAL mode (waiting could deadlock): such a writer (another program) is waited for
    here, up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    if mode.lower() != "wal":  # e.g. a file system without shared memory: the rollback journal is safe too
        _log.warning("the response cache %s stays in journal mode %s (WAL not available)", path, mode)


def _schema_present(path: Path) -> bool:
    conn = _connect(path)
    try:
        return _has_schema(conn)
    finally:
        conn.close()


def _has_schema(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
    return row is not None


class _transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on an error): the write lock is taken up front, so two
    writers never deadlock upgrading read locks."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")
