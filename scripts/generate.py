"""Write (or, with --check, verify) the files generated from the options table (docs/options.md) and from the
agent programs' declared model_params (docs/agent-options.md).

python scripts/generate.py          # rewrite them
python scripts/generate.py --check  # exit 1 naming each stale file (the tests run this check)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcompass._config import OPTIONS_PAGE, options_markdown  # noqa: E402 - after the path set-up
from agentcompass.harnesses._installed import options as agent_options  # noqa: E402


def generated() -> dict[str, str]:
    """Path (relative to the repository root) -> the text it must hold."""
    from agentcompass._orchestrator.record import DOC_PAGE, results_page

    pages = {OPTIONS_PAGE: options_markdown(), agent_options.PAGE: agent_options.page()}
    return {**pages, DOC_PAGE: results_page((ROOT / DOC_PAGE).read_text())}


def stale() -> list[str]:
    return [p for p, text in generated().items() if not (ROOT / p).is_file() or (ROOT / p).read_text() != text]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        paths = stale()
        for p in paths:
            print(f"{p} is out of date: run python scripts/generate.py", file=sys.stderr)
        return 1 if paths else 0
    for p, text in generated().items():
        (ROOT / p).write_text(text)
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
