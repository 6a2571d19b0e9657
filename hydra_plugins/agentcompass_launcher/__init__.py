"""The ``agentcompass`` Hydra launcher (select with ``hydra/launcher=agentcompass``)."""
