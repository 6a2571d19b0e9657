"""Small helpers shared by the telecom toolkits: the domain's fixed clock and the toolkits' method names."""

from __future__ import annotations

import inspect
from datetime import date, datetime
from typing import Any


def get_now() -> datetime:
    """The telecom domain's fixed "now" (the reference's ``utils.get_now``)."""
    return datetime(2025, 2, 25, 12, 8, 0)


def get_today() -> date:
    """The telecom domain's fixed "today" (the reference's ``utils.get_today``)."""
    return date(2025, 2, 25)


def fix_qualnames(cls: type, *parts: type) -> None:
    """Name every method of ``cls`` and of the mixins it is assembled from ``<cls>.<method>``, as the reference's
    single class names them: a call with a missing or unexpected argument raises the reference's TypeError text."""
    for part in (cls, *parts):
        for name, attr in vars(part).items():
            if inspect.isfunction(attr):
                attr.__qualname__ = f"{cls.__name__}.{name}"


class ModelNames:
    """Attribute access to a domain's models (``m.LineStatus`` for ``models["LineStatus"]``)."""

    def __init__(self, models: Any) -> None:
        self._models = models

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._models[name]
