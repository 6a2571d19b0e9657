"""SWE-bench-format benchmarks: dataset loader, log parsers, grading rules, run reports."""

from .benchmark import SWEBenchBenchmark, SWEBenchConfig

__all__ = ["SWEBenchBenchmark", "SWEBenchConfig"]
