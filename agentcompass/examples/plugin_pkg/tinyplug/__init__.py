"""A tiny agentcompass plug-in: the ``echo`` benchmark (say a word back) and the ``echo_agent`` harness."""

from pathlib import Path

CONF_DIR = Path(__file__).parent / "conf"  # the entry point: benchmark/ and harness/ config files
