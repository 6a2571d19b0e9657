"""Exports of a finished run directory into other tools' layouts (``agentcompass export FORMAT RUN_DIR OUT_DIR``).

- ``harbor``: Harbor's job layout (:mod:`.harbor`), readable by ``harbor view`` and Harbor's job/trial models.
"""
