"""The τ²-bench domains: each domain's tools and environment, reimplemented from the reference."""
