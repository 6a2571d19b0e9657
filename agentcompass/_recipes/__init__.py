"""Recipes: named config overlays with hooks run inside the environment (see ``docs/recipes.md``).

The recipe files (format, lookup, validation) are part of composition and live in
:mod:`agentcompass._config.recipes`; this package runs their hooks. ``compose`` loads the enabled recipes
(:func:`load`) and merges their ``config`` overlays between the config files and the command-line values; the
resolved config records them under ``recipes``; the orchestrator builds a :class:`RecipeRunner` from that
record and calls ``run_hooks`` at each phase of every attempt.
"""

from agentcompass._config.recipes import PHASES, Recipe, RecipeFile, available, load, search_dirs

from .runner import RecipeRunner

__all__ = ["PHASES", "Recipe", "RecipeFile", "RecipeRunner", "available", "load", "search_dirs"]
