"""The ``qwen_code`` harness: Qwen Code (npm ``@qwen-code/qwen-code``, a Node program, with a delivered Node
runtime) run in its non-interactive mode (``--prompt``) on the model gateway (OpenAI Chat Completions)."""

from .agent import QwenCodeConfig, QwenCodeHarness

__all__ = ["QwenCodeConfig", "QwenCodeHarness"]
