"""The statistics behind every interval, p-value and power figure agentcompass prints (``docs/statistics.md``).

Pure functions of numbers, importing nothing of the package: ``dist`` (normal, Student t, noncentral t, the
binomial sign test), ``intervals`` (Wilson, task-clustered t), ``paired`` (paired differences: clustered
interval, seeded paired bootstrap, exact McNemar / paired t / sign-flip permutation), ``power`` (minimum
detectable difference, tasks and samples needed) and ``multiple`` (Holm's step-down correction). SciPy is not
needed: the distributions are computed here (and checked against SciPy and statsmodels in the tests); numpy is
imported only by the bootstrap and the permutation test, when they run.
"""
