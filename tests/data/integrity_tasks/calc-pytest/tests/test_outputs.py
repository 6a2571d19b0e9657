import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from calc import add


def test_add_hidden_cases():
    assert add(-1, 1) == 0
    assert add(10, 32) == 42
