"""Helpers plug-ins may import, besides :mod:`agentcompass.interfaces` and :mod:`agentcompass.errors`.

- :func:`require`: import an optional dependency; when it is missing, a DependencyError names the exact
  ``pip install 'agentcompass[<extra>]'`` command, or with ``auto_install_dependencies`` it is installed into
  the running interpreter and the import is retried.
"""

from __future__ import annotations

from agentcompass._deps import require

__all__ = ["require"]
