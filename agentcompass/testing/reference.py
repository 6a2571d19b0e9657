"""Reference packages for agreement tests, each in its own virtual environment.

``scripts/ensure_reference.sh`` creates them under ``$AGENTCOMPASS_REFERENCE_DIR`` (default
``~/.cache/agentcompass/reference``); tests run the reference's own code there in a subprocess
(:func:`run_reference`) and compare its output with ours.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any


def reference_dir() -> Path:
    return Path(os.environ.get("AGENTCOMPASS_REFERENCE_DIR") or Path.home() / ".cache" / "agentcompass" / "reference")


def reference_python(name: str) -> Path | None:
    """The interpreter of reference venv ``name``, or None when it has not been created."""
    venv = reference_dir() / name
    py = venv / "bin" / "python"
    return py if (venv / ".agentcompass-ready").is_file() and py.is_file() else None


def run_reference(name: str, script: str, payload: Any = None, *, timeout: float = 300.0) -> Any:
    """Run ``script`` (Python source) in reference venv ``name`` with ``payload`` as JSON on stdin; the script
    prints one JSON document, which is returned. Raises RuntimeError naming the venv when it is missing or the
    script fails."""
    py = reference_python(name)
    if py is None:
        raise RuntimeError(
            f"reference venv {name!r} is missing under {reference_dir()}: run scripts/ensure_reference.sh {name}"
        )
    proc = subprocess.run(
        [str(py), "-c", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "PYTHONPATH": ""},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"reference script in {name!r} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)
