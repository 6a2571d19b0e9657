"""The orchestrator: one asyncio pool of attempts, in three layers, each a package with its front door.

- :mod:`.record`: the run directory and the typed files in it (lowest);
- :mod:`.metrics`: what a run's results say (metrics, costs, the summary, the integrity scan);
- :mod:`.scheduling`: requests, attempts, the pool, budgets, progress, services and executors (top).

A layer imports only the layers below it, and every package (a sibling layer included) imports a layer's names from
its ``__init__``, never its modules (tests/import_rules.py). This package itself exports nothing.
"""
