"""Fixtures for recipe tests: recipe directories written on the fly, a private local-environment root."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def dirs(tmp_path):
    """Two recipe directories, searched in this order (the second wins on a name clash)."""
    return tmp_path / "recipes1", tmp_path / "recipes2"


@pytest.fixture
def local_env(tmp_path):
    """environment_params for a local environment whose workspaces live under tmp_path and that does NOT
    inherit the host's variables (so a variable reaching a hook came through the recipe's ``env``)."""
    root = tmp_path / "workspaces"
    return {"root_dir": str(root), "inherit_env": False, "env": {"PATH": os.environ["PATH"]}}
