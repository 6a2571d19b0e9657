"""Terminal-Bench 2 / Harbor task format: task.toml parser, task-directory loader, verifier and reward reader.

``benchmark.TerminalBenchBenchmark`` is the generic benchmark over a directory of such tasks; the demo benchmark
and the published Terminal-Bench datasets build on it.
"""
