"""Recipes: named config overlays with hooks run inside the environment (see ``docs/recipes.md``).

The recipe files (format, lookup, validation) are part of composition and live in
:mod:`agentcompass._config.recipes`; this package runs their hooks. ``compose`` loads the enabled recipes
(:func:`load`) and merges their ``config`` overlays between the config files and the command-line values; the
resolved config records them under ``recipes``; the orchestrator builds a :class:`RecipeRunner` from that
record and calls ``run_hooks`` at each phase of every attempt.
"""

from agentcompass._config import RECIPE_PHASES as PHASES
from agentcompass._config import Recipe, RecipeFile
from agentcompass._config import available_recipes as available
from agentcompass._config import load_recipes as load
from agentcompass._config import recipe_search_dirs as search_dirs

from .runner import RecipeRunner

__all__ = ["PHASES", "Recipe", "RecipeFile", "RecipeRunner", "available", "load", "search_dirs"]
