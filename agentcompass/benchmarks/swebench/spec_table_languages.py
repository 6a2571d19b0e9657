"""SWE-bench's evaluation facts of the repositories in other languages than Python (SWE-bench Multilingual,
SWE-bench Multimodal): data in ``spec_table_languages.json`` beside this module, read once.

Per repository: ``language`` (the official harness's extension name: js, java, go, rs, c, php, rb), ``log_parser``
and ``versions``: version -> ``test_cmd`` (the commands between the test-output markers, in order) and ``build``
(run after the test patch applies). Repositories whose test commands depend on the instance (wp-calypso) are
described in :mod:`.eval_scripts`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from .shapes import LanguageRepo, VersionFacts


@cache
def table() -> dict[str, LanguageRepo]:
    text = resources.files(__package__).joinpath("spec_table_languages.json").read_text(encoding="utf-8")
    return json.loads(text)["repos"]


def repos() -> list[str]:
    return list(table())


def versions(repo: str) -> list[str]:
    entry = table().get(repo)
    return list(entry["versions"]) if entry else []


def language(repo: str) -> str | None:
    entry = table().get(repo)
    return entry["language"] if entry else None


def facts(repo: str, version: str) -> VersionFacts | None:
    """``{language, log_parser, test_cmd: [...], build: [...]}`` of (``repo``, ``version``), or None."""
    entry = table().get(repo)
    if entry is None or version not in entry["versions"]:
        return None
    pair = entry["versions"][version]
    return {
        "language": entry["language"],
        "log_parser": entry["log_parser"],
        "test_cmd": list(pair["test_cmd"]),
        "build": list(pair.get("build", ())),
    }
