"""Task fixtures under tests/data carry their own test files (run inside task environments), not agentcompass tests."""

collect_ignore_glob = ["tb1_tasks/*", "tb2_tasks/*", "tb2_special/*", "integrity_tasks/*"]
