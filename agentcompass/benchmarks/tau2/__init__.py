"""τ²-bench (airline, retail, telecom): tool-use conversations with a simulated user, graded as the reference grades.

Every text of tau2-bench (policies, tool descriptions, data models, user-simulator guidelines, prompts) is read at run
time from a checkout of the tau2-bench repository at a pinned commit (downloaded into the data dir, or
``dataset_path``); this package holds only the behaviour (tools, evaluator, orchestration rules)."""
