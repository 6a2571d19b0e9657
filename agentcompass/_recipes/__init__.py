"""Recipes: named config overlays with hooks run inside the environment (see ``docs/recipes.md``).

``compose`` loads the enabled recipes (:func:`load`) and merges their ``config`` overlays between the config
files and the command-line values; the resolved config records them under ``recipes``; the orchestrator builds
a :class:`RecipeRunner` from that record and calls ``run_hooks`` at each phase of every attempt.
"""

from .runner import RecipeRunner
from .spec import PHASES, Recipe, RecipeFile, available, load, search_dirs

__all__ = ["PHASES", "Recipe", "RecipeFile", "RecipeRunner", "available", "load", "search_dirs"]
