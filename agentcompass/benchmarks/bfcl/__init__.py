"""BFCL v4 multi-turn (``bfcl_multi_turn``), run and graded by the installed ``bfcl-eval`` package (docs/bfcl.md)."""
