"""Exit codes of the command line (143 = 128 + SIGTERM, 130 = 128 + SIGINT, as shells report them)."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 124, 130, 143
EXIT_BUDGET = 3  # the run ended stopped_budget: cost_limit_usd / token_limit reached (docs/budgets.md)
