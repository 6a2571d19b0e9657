"""The shapes of BFCL's data as this package reads and writes it: a multi-turn entry as ``bfcl_eval``'s
``load_dataset_entry`` gives it, the checker's verdict in a grade's details, the state changes a call made, and
the rows and scores of a run's ``bfcl_scores.json``."""

from __future__ import annotations

from typing import TypedDict


class BfclMessage(TypedDict):
    """A message of an entry's ``question`` (one user turn is a list of them)."""

    role: str
    content: str


class BfclEntry(TypedDict, total=False):
    """A BFCL multi-turn entry (``bfcl_eval.utils.load_dataset_entry``: ``function`` and ``missed_function``
    filled in); function docs are the package's, passed to it whole."""

    id: str
    question: list[list[BfclMessage]]
    function: list[dict[str, object]]
    missed_function: dict[str, list[dict[str, object]]]
    initial_config: dict[str, object]
    involved_classes: list[str]


class OracleToolCall(TypedDict):
    """A tool call of the oracle's messages, from a ground-truth call expression."""

    id: str
    name: str
    arguments: dict[str, object]


class StateChange(TypedDict):
    """One change a call made to the API instances' public state (``transcript.info["effects"]``)."""

    path: str
    before: object
    after: object


class VerdictDetails(TypedDict):
    """The checker's verdict in a grade's details (``checker``)."""

    valid: bool
    turns: list[bool | None]
    error: object


class ResultRow(TypedDict, total=False):
    """The fields of a run's results row that the scores read."""

    task_id: str
    resolved: bool | None


class CategoryScore(TypedDict):
    """One category's accuracy in ``bfcl_scores.json``."""

    accuracy: float
    correct_count: int
    total_count: int


class BfclScores(TypedDict):
    """``bfcl_scores.json``: per-category accuracy and the leaderboard's multi-turn overall."""

    categories: dict[str, CategoryScore]
    overall: float
    complete: bool
    overall_of_run: float
    bfcl_eval: str
